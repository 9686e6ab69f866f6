// What Restricted Mode counts that VS Code hides before trust: the workspace settings' commands
// and the tasks.json tasks mcpTasks.exposeVsCodeTasks would serve, read as text (pure functions).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeCommands } from '../../../extension/commandTools/commandSources';
import { exposedTaskLabels, heldBackByTrust, hiddenWorkspaceSettings, parseJsonc, tasksJsonLabels } from '../../../extension/commandTools/waitingForTrust';

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

    it("in a multi-root window counts the workspace file's settings and its own tasks, not a folder's settings.json", () => {
        const workspaceFile = `{
          "folders": [{ "path": "a" }, { "path": "b" }],
          "settings": { "mcpTasks.commands": [{ "name": "w", "command": ["true"] }], "mcpTasks.exposeVsCodeTasks": true },
          // the workspace's own tasks, beside the folders' tasks.json
          "tasks": { "version": "2.0.0", "tasks": [{ "label": "release", "type": "shell", "command": "make release" }, { "label": "build", "type": "shell", "command": "make" }] },
        }`;
        assert.deepEqual(tasksJsonLabels(workspaceFile, true), ['release', 'build']);
        const held = heldBackByTrust({ workspaceFile, folders: [{ settings: settingsJson, tasks: tasksJson }, {}] }, undefined);
        assert.deepEqual(held.taskLabels, ['build', 'lint', 'release'], "the folder's tasks and the workspace file's, a label in both once");
        // VS Code ignores a folder's value of a window-scoped setting in a multi-root window: only the workspace file's counts.
        assert.deepEqual(held.commands, [{ name: 'w', command: ['true'] }]);
        // A workspace file that says nothing of the settings: the user's exposeVsCodeTasks applies, and no folder's.
        const quiet = heldBackByTrust({ workspaceFile: workspaceFile.replace(/"settings": \{[^\n]*\},/, ''), folders: [{ settings: settingsJson, tasks: tasksJson }] }, ['release']);
        assert.deepEqual(quiet, { commands: undefined, taskLabels: ['release'] });
    });

    it('in a single-folder window reads that folder\'s settings.json and tasks.json, as before', () => {
        assert.deepEqual(heldBackByTrust({ folders: [{ settings: settingsJson, tasks: tasksJson }] }, true), { commands: hiddenWorkspaceSettings(settingsJson).commands, taskLabels: ['build'] });
        assert.deepEqual(heldBackByTrust({ folders: [] }, true), { commands: undefined, taskLabels: [] });
    });
});
