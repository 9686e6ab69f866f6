// What Restricted Mode counts that VS Code hides before trust: the workspace settings' commands
// and the tasks.json tasks mcpTasks.exposeVsCodeTasks would serve, read as text (pure functions).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeCommands } from '../../../extension/commandTools/commandSources';
import { exposedTaskLabels, hiddenWorkspaceSettings, parseJsonc, tasksJsonLabels } from '../../../extension/commandTools/waitingForTrust';

const settingsJson = `{
  // the workspace's own commands
  "mcpTasks.commands": [
    { "name": "a", "command": ["echo", "// not a comment"] },
    { "name": "b", "command": ["echo", "/* nor this */"] }, // trailing comma next
  ],
  /* which tasks to expose */
  "mcpTasks.exposeVsCodeTasks": ["build", "missing"],
}`;
const tasksJson = `{
  "version": "2.0.0",
  // a comment, and a trailing comma below
  "tasks": [
    { "label": "build", "type": "shell", "command": "make" },
    { "label": "lint", "type": "shell", "command": "eslint \\"src\\"" },
    { "type": "npm", "script": "test" },
  ],
}`;

describe('counting what waits for workspace trust', () => {
    it('parses JSON with comments and trailing commas, keeping comment marks inside strings', () => {
        assert.deepEqual(parseJsonc('{"a": "x // y", /* c */ "b": [1, 2,],} // end'), { a: 'x // y', b: [1, 2] });
        assert.equal(parseJsonc('{"a": '), undefined);
        assert.equal(parseJsonc(''), undefined);
    });

    it("reads the two restricted settings from a folder's settings.json or a workspace file's \"settings\"", () => {
        const hidden = hiddenWorkspaceSettings(settingsJson);
        assert.equal((hidden.commands as unknown[]).length, 2);
        assert.deepEqual(hidden.exposeVsCodeTasks, ['build', 'missing']);
        assert.deepEqual(hiddenWorkspaceSettings(`{"folders": [], "settings": {"mcpTasks.exposeVsCodeTasks": true}}`, true), { commands: undefined, exposeVsCodeTasks: true });
        assert.deepEqual(hiddenWorkspaceSettings(undefined), { commands: undefined, exposeVsCodeTasks: undefined });
        assert.deepEqual(hiddenWorkspaceSettings('not json'), { commands: undefined, exposeVsCodeTasks: undefined });
    });

    it('counts the tasks.json labels the setting selects, by the rule that serves them once trusted', () => {
        assert.deepEqual(tasksJsonLabels(tasksJson), ['build', 'lint']);
        assert.deepEqual(exposedTaskLabels(['build', 'missing'], [tasksJson]), ['build']);
        assert.deepEqual(exposedTaskLabels(true, [tasksJson, undefined, tasksJson]), ['build', 'lint'], 'a label in two folders is one tool');
        assert.deepEqual(exposedTaskLabels(undefined, [tasksJson]), []);
        assert.deepEqual(exposedTaskLabels(false, [tasksJson]), []);
        assert.deepEqual(exposedTaskLabels(true, ['{"tasks": "no"}', undefined]), []);
    });

    it('the merge counts every kind untrusted and runs none of them', () => {
        const hidden = hiddenWorkspaceSettings(settingsJson);
        const sources = [
            { label: 'user', fromWorkspace: false, base: '/ws', entries: [{ name: 'u', description: 'u', command: ['true'] }] },
            { label: 'workspace settings', fromWorkspace: true, base: '/ws', entries: hidden.commands },
            { label: 'file', fromWorkspace: true, base: '/ws', entries: [{ name: 'f', description: 'f', command: ['true'] }] },
            { label: 'tasks', fromWorkspace: true, base: '/ws', entries: exposedTaskLabels(hidden.exposeVsCodeTasks, [tasksJson]) },
        ];
        const merged = mergeCommands(sources, ['/ws'], false);
        assert.equal(merged.waitingForTrust, 4);
        assert.deepEqual([...merged.origins.keys()], ['u']);
        assert.ok(merged.problems.includes('tasks: 1 command(s) wait for workspace trust'));
    });
});
