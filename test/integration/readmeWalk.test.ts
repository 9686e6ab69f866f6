import * as assert from 'node:assert/strict';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { OWN_CLIENT_NAME } from '../../extension/owner/ownerConnection';
import type { TaskView } from '../../extension/tasks/taskView';
import { protocolTerms, RAW_PLACEHOLDER } from '../support/userText';
import { readyWithTasksView, useColorTheme, waitFor } from './util';

/** One picture of the walk and the text a user could read on it (walkDriver.mjs). */
interface Shot {
    name: string;
    texts: { where: string; text: string }[];
    sidebarWidth: number;
    viewport: { width: number; height: number };
    /** Where the keyboard was as the picture was taken. */
    focus: { inQuestion: boolean; label: string };
}

/** An action of the walk driver (walkDriver.mjs `actions`): what the user does next. */
type Action = { do: string; shot?: string } & Record<string, unknown>;

/**
 * A fresh walk of the journeys the extension README (and the root README's editor part) tells a user to
 * take, in order, in a workbench of its own at VS Code's default window size (run.mjs, the "README walk"
 * pass). The Playwright walk driver clicks and types as a user does; at each step it saves
 * <journey>-<step>.png in test-results/screenshots/walk and the text a user can read there, which must
 * hold no raw placeholder, protocol term, JSON-RPC word or internal client name.
 */
describe('a fresh walk of the README journeys', function () {
    this.timeout(180_000);
    let api: McpTasksTestApi;
    let requests = 0;
    const dir = process.env.MCP_TASKS_UI_DIR ?? '';

    before(async function () {
        if (!dir) {
            throw new Error('the README walk needs the Playwright walk driver (node test/integration/run.mjs --only=walk)');
        }
        api = await readyWithTasksView();
    });

    /** Asks the walk driver to do `actions` and waits for its report: the pictures it took and their text. */
    async function walk(name: string, actions: Action[]): Promise<Shot[]> {
        const since = Date.now();
        // Whole or not at all: the driver reads a request the moment its name appears.
        const request = join(dir, `request-${requests++}.json`);
        writeFileSync(`${request}.partial`, JSON.stringify({ name, actions }));
        renameSync(`${request}.partial`, request);
        const report = join(dir, `${name}.json`);
        await waitFor(`the walk driver's report ${name}.json`, () => ((statSync(report, { throwIfNoEntry: false })?.mtimeMs ?? 0) >= since ? true : undefined), 150_000, 100);
        const { shots, errors } = JSON.parse(readFileSync(report, 'utf8')) as { shots: Shot[]; errors: string[] };
        assert.deepEqual(errors, [], `the walk driver could not do every step of ${name}`);
        for (const shot of shots) {
            assert.deepEqual(findings(shot), [], `what a user reads at ${shot.name}.png`);
        }
        return shots;
    }

    /** What a user should not read on a picture: each finding with where it showed and the line around it. */
    function findings(shot: Shot): string[] {
        return shot.texts.flatMap(({ where, text }) =>
            text.split('\n').flatMap(line => {
                const found = [...protocolTerms(line, OWN_CLIENT_NAME), ...(RAW_PLACEHOLDER.test(line) ? ['a raw placeholder'] : [])];
                return found.map(what => `${what} in ${where}: "${line.trim().slice(0, 200)}"`);
            }),
        );
    }

    /** The text of one picture; the editor draws spaces as non-breaking ones, which read as spaces here. */
    const allText = (shots: Shot[], name: string) =>
        (shots.find(shot => shot.name === name)?.texts ?? [])
            .map(read => read.text)
            .join('\n')
            .replace(/[^\S\n]+/g, ' ');

    /**
     * Closes every editor and waits until they are gone: a tab closing takes the focus, and a quick input
     * the next step opens meanwhile would close with it.
     */
    async function closeEditors(): Promise<void> {
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        await waitFor('no editor open', () => (vscode.window.tabGroups.all.every(group => group.tabs.length === 0) ? true : undefined));
    }

    function task(tool: string, keyArgument: string): TaskView | undefined {
        return api.testing.model.all().find(view => view.toolName === tool && view.keyArgument === keyArgument && !view.lost);
    }

    it('open: the Tasks view, empty, at the default window and sidebar size', async () => {
        const [shot] = await walk('open', [{ do: 'waitText', text: 'No MCP tasks yet' }, { do: 'shot', shot: 'open-empty' }]);
        assert.deepEqual(shot!.viewport, { width: 1440, height: 900 });
        assert.equal(shot!.sidebarWidth, 300, "the sidebar at VS Code's default width");
        assert.match(allText([shot!], 'open-empty'), /Run Tool…/);
    });

    it('Run Tool… from the title bar: the picker, the typed form, the run mode; progress in the row and the status bar', async () => {
        const shots = await walk('run-tool', [
            { do: 'pickTool', choose: 'Demo: Slow Compute', shot: 'run-tool-picker' },
            {
                do: 'form',
                answers: [
                    { title: 'label|name', value: 'quarterly report', shot: 'run-tool-form-label' },
                    { title: 'seconds|[Ss]econds', value: '20', shot: 'run-tool-form-seconds' },
                ],
            },
            { do: 'answer', title: 'How should it run', choose: 'Run as task', shot: 'run-tool-mode' },
        ]);
        assert.match(allText(shots, 'run-tool-picker'), /Demo: Slow Compute/);
        const view = await waitFor('the quarterly report running with progress', () => ((task('slow_compute', 'quarterly report')?.progress?.progress ?? 0) > 0 ? task('slow_compute', 'quarterly report') : undefined), 60_000);
        const progress = await walk('progress', [
            // The row draws the model's progress a moment after the model has it.
            { do: 'waitText', pattern: 'Running: quarterly report\\s*\\d+%' },
            { do: 'shot', shot: 'progress-row' },
            { do: 'hoverRow', row: 'quarterly report', shot: 'progress-row-tooltip' },
            { do: 'hoverStatus', id: 'mcpTasks.status', has: 'quarterly report — \\d+%', shot: 'progress-status-bar' },
        ]);
        assert.match(allText(progress, 'progress-row'), /quarterly report/);
        assert.match(allText(progress, 'progress-row'), /Running: quarterly report\s*\d+%/, 'the state first, then the name and its progress');
        assert.match(allText(progress, 'progress-status-bar'), /1 task · slow_compute \d+%/);
        assert.match(allText(progress, 'progress-status-bar'), /slow_compute: quarterly report — \d+%/, "the status bar's tooltip");
        assert.equal(view.status, 'working');
    });

    it('Cancel on the row, then Run Again', async () => {
        const first = task('slow_compute', 'quarterly report')!;
        await walk('cancel', [{ do: 'rowAction', row: 'quarterly report', title: 'Cancel Task' }]);
        await waitFor('the quarterly report cancelled', () => (first.status === 'cancelled' ? true : undefined));
        // The model has it; the tree draws it a moment later (on a loaded machine, after a shot taken at once).
        const cancelled = await walk('cancelled', [{ do: 'waitText', pattern: 'Cancelled: quarterly report' }, { do: 'shot', shot: 'cancel-row' }, { do: 'hoverRow', row: 'quarterly report', shot: 'cancel-row-tooltip' }]);
        assert.match(allText(cancelled, 'cancel-row'), /Cancelled: quarterly report/);
        // Who cancelled it, as the user knows it (the server's own words are "Cancelled by the client").
        assert.match(allText(cancelled, 'cancel-row-tooltip'), /Cancelled by you/);
        await walk('run-again', [{ do: 'rowAction', row: 'quarterly report', title: 'Run Again' }]);
        const again = await waitFor('a second quarterly report', () => api.testing.model.all().find(view => view.keyArgument === 'quarterly report' && view.taskId !== first.taskId && view.status === 'working'));
        await walk('run-again-row', [{ do: 'shot', shot: 'run-again-row' }]);
        await vscode.commands.executeCommand('mcpTasks.cancelTask', again);
        await waitFor('the second run cancelled', () => (again.status === 'cancelled' ? true : undefined));
    });

    it('a question answered through Respond: it opens with the keyboard in it; Escape hides it, Respond brings it back', async () => {
        const asked = await walk('respond', [
            { do: 'pickTool', choose: 'Demo: Confirm Delete' },
            { do: 'form', answers: [{ title: 'file|File', value: 'notes/old-draft.md', shot: 'respond-form' }] },
            { do: 'escape', title: 'old-draft', shot: 'respond-question' },
            { do: 'waitText', text: 'needs input' },
            { do: 'shot', shot: 'respond-waiting' },
            { do: 'hoverRow', row: 'old-draft', shot: 'respond-waiting-tooltip' },
            { do: 'rowAction', row: 'old-draft', title: 'Respond' },
            { do: 'answer', title: 'old-draft', choose: 'Keep the file', shot: 'respond-reopened' },
        ]);
        // Opened by Run Tool, the question has the keyboard: Enter answers it, never a row of the view.
        const question = asked.find(shot => shot.name === 'respond-question');
        assert.equal(question?.focus.inQuestion, true, `the keyboard was at ${question?.focus.label}`);
        await waitFor('the file kept', () => (task('confirm_delete', 'notes/old-draft.md')?.status === 'completed' ? true : undefined));
        const kept = await walk('respond-kept', [{ do: 'waitText', text: 'Kept the file' }, { do: 'shot', shot: 'respond-kept' }]);
        assert.match(allText(kept, 'respond-kept'), /Kept the file/);
    });

    it('Show Result on a finished task', async () => {
        await walk('result', [
            { do: 'pickTool', choose: 'Demo: Slow Compute' },
            {
                do: 'form',
                answers: [
                    { title: 'label|name', value: 'weekly report' },
                    { title: 'seconds|[Ss]econds', value: '1' },
                ],
            },
            { do: 'answer', title: 'How should it run', choose: 'Run as task' },
        ]);
        await waitFor('the weekly report done', () => (task('slow_compute', 'weekly report')?.status === 'completed' ? true : undefined), 60_000);
        // The result's own text, which only the preview shows (the row says "weekly report" too): the preview
        // opens after its document, and closing the editors before it is drawn left it to take the next step's focus.
        const shown = 'Computation "weekly report" completed';
        const shots = await walk('result-shown', [{ do: 'rowAction', row: 'weekly report', title: 'Show Result' }, { do: 'waitText', text: shown }, { do: 'shot', shot: 'result-preview' }]);
        assert.ok(allText(shots, 'result-preview').includes(shown), allText(shots, 'result-preview'));
        await closeEditors();
    });

    it('Run Tool… → Wait for the result: its progress in a notification with Cancel, then the result opens', async () => {
        const shots = await walk('wait', [
            { do: 'pickTool', choose: 'Demo: Slow Compute' },
            {
                do: 'form',
                answers: [
                    { title: 'label|name', value: 'monthly report' },
                    { title: 'seconds|[Ss]econds', value: '5' },
                ],
            },
            { do: 'answer', title: 'How should it run', choose: 'Wait for the result', shot: 'wait-mode' },
            { do: 'notification', has: 'Running Demo: Slow Compute', shot: 'wait-progress' },
            { do: 'waitText', text: 'Computation "monthly report" completed' },
            { do: 'shot', shot: 'wait-result' },
        ]);
        // The Notifications Center lists the item's source, its Cancel button, then its message.
        assert.match(allText(shots, 'wait-progress'), /Source: MCP Tasks\nCancel\nRunning Demo: Slow Compute…/);
        assert.match(allText(shots, 'wait-result'), /monthly report/);
        await closeEditors();
    });

    it("a language model request: the permission question, then the haiku's result", async () => {
        await walk('haiku', [
            { do: 'pickTool', choose: 'Demo: Write Haiku' },
            { do: 'form', answers: [{ title: 'topic|about', value: 'autumn rain', shot: 'haiku-form' }] },
            { do: 'notification', has: 'autumn rain', button: 'Allow', shot: 'haiku-permission' },
        ]);
        await waitFor('the haiku written', () => (task('write_haiku', 'autumn rain')?.status === 'completed' ? true : undefined), 60_000);
        const shots = await walk('haiku-result', [{ do: 'rowAction', row: 'autumn rain', title: 'Show Result' }, { do: 'waitText', text: 'Haiku about autumn rain' }, { do: 'shot', shot: 'haiku-result' }]);
        assert.match(allText(shots, 'haiku-result'), /Haiku about autumn rain/);
        await closeEditors();
    });

    it('a workspace command from .vscode/mcp-tasks.json, and its output', async () => {
        await walk('command', [
            { do: 'pickTool', choose: 'run_tests', shot: 'command-picker' },
            { do: 'form', answers: [{ title: 'filter|pattern', value: '', shot: 'command-form' }] },
            { do: 'answer', title: 'How should it run', choose: 'Run as task' },
        ]);
        await waitFor('the tests run', () => (api.testing.model.all().find(view => view.toolName === 'run_tests')?.status === 'completed' ? true : undefined), 60_000);
        const shots = await walk('command-output', [
            { do: 'shot', shot: 'command-done' },
            { do: 'rowMenu', row: 'run_tests', item: 'Show Output', shot: 'command-menu' },
            { do: 'waitText', text: '5 passed' },
            { do: 'shot', shot: 'command-output' },
        ]);
        assert.match(allText(shots, 'command-output'), /5 passed/);
        await closeEditors();
    });

    it('a running command: its latest output line in the row while it runs', async () => {
        await walk('command-live', [
            { do: 'pickTool', choose: 'slow_tests' },
            { do: 'answer', title: 'How should it run', choose: 'Run as task' },
            // A line the command printed, drawn in its row while it still runs.
            { do: 'waitText', pattern: 'slow_tests[\\s\\S]*running[\\s\\S]*ok [2-9] ' },
        ]);
        const shots = await walk('command-live-row', [{ do: 'shot', shot: 'command-live-row' }]);
        const view = api.testing.model.all().find(row => row.toolName === 'slow_tests');
        assert.equal(view?.status, 'working', 'still running when photographed');
        assert.match(allText(shots, 'command-live-row'), /ok \d+ \w+/);
        await vscode.commands.executeCommand('mcpTasks.cancelTask', view);
        await waitFor('the slow tests cancelled', () => (view?.status === 'cancelled' ? true : undefined));
    });

    it('a question left unanswered until its time runs out: the row says so and stays', async function () {
        this.timeout(240_000);
        const server = () => vscode.workspace.getConfiguration('mcpTasks.server');
        const restarted = async (change: () => Thenable<void>) => {
            const before = api.serverState().pid;
            await change();
            await waitFor('the server restarted', () => {
                const { pid } = api.serverState();
                return pid && pid !== before && api.testing.owner.connected && !api.testing.settingsWaiting() ? true : undefined;
            }, 60_000, 100);
        };
        await restarted(() => server().update('defaultTtl', '5s', vscode.ConfigurationTarget.Global));
        try {
            await walk('expired', [
                { do: 'pickTool', choose: 'Demo: Confirm Delete' },
                { do: 'form', answers: [{ title: 'file|File', value: 'notes/unanswered.md' }] },
                { do: 'escape', title: 'unanswered' },
            ]);
            await waitFor('the question expired', () => (api.testing.model.all().find(view => view.keyArgument === 'notes/unanswered.md')?.expired ? true : undefined), 60_000);
            const shots = await walk('expired-row', [{ do: 'waitText', pattern: 'Expired: notes/unanswere' }, { do: 'shot', shot: 'expired-question-row' }]);
            assert.match(allText(shots, 'expired-question-row'), /Expired: notes\/unanswere\S*\s*not answered in time/);
        } finally {
            await restarted(() => server().update('defaultTtl', undefined, vscode.ConfigurationTarget.Global));
        }
    });

    it('a tasks.json task offered as a tool', async () => {
        await walk('vscode-task', [{ do: 'pickTool', choose: 'build', shot: 'vscode-task-picker' }]);
        await waitFor('the build task done', () => (api.testing.model.all().find(view => view.toolName === 'vscode_task_build')?.status === 'completed' ? true : undefined), 120_000);
        // The model has it; the tree draws the row a moment later.
        const shots = await walk('vscode-task-done', [{ do: 'waitText', pattern: '^Completed: build' }, { do: 'shot', shot: 'vscode-task-row' }]);
        // Named by the task's label, not the tool's name.
        assert.match(allText(shots, 'vscode-task-row'), /^Completed: build\b/m);
    });

    it('High Contrast and High Contrast Light: every state in words beside its icon', async function () {
        this.timeout(240_000);
        // Beside the finished, cancelled and expired rows of the walk so far: one running, one waiting for an answer.
        const running = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'slow_compute', args: { seconds: 300, label: 'nightly build' }, mode: 'task' })) as string;
        const asking = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'confirm_delete', args: { filename: 'contrast.md' }, mode: 'task' })) as string;
        const { model, pendingInputs } = api.testing;
        await waitFor('the question', () => (pendingInputs.get(asking) && !pendingInputs.get(asking)?.hidden ? true : undefined), 30_000);
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        await waitFor('both running', () => (model.get(running)?.status === 'working' && model.get(asking)?.status === 'input_required' ? true : undefined), 30_000);
        await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
        try {
            for (const [theme, shot] of [
                ['Default High Contrast', 'theme-high-contrast'],
                ['Default High Contrast Light', 'theme-high-contrast-light'],
            ] as const) {
                await useColorTheme(theme);
                const shots = await walk(shot, [{ do: 'waitText', pattern: 'Needs input: contrast\\.md' }, { do: 'shot', shot }]);
                const text = allText(shots, shot);
                // The state in words on each row, not only in its icon's color.
                for (const words of [/Running: nightly build/, /Needs input: contrast\.md/, /Completed: \S+ report/, /Cancelled: quarterly report/, /Expired: notes\/unanswere/]) {
                    assert.match(text, words, `${theme}: ${text.slice(0, 400)}`);
                }
            }
        } finally {
            await useColorTheme(undefined);
            await api.testing.owner.cancel(running).catch(() => undefined);
            await api.testing.owner.cancel(asking).catch(() => undefined);
        }
    });

    it('the walkthrough: Help → Welcome → Learn MCP Tasks', async () => {
        await vscode.commands.executeCommand('workbench.action.openWalkthrough', 'mcp-tasks.mcp-tasks#gettingStarted', false);
        const shots = await walk('walkthrough', [{ do: 'waitText', text: 'Learn MCP Tasks' }, { do: 'shot', shot: 'walkthrough' }]);
        assert.match(allText(shots, 'walkthrough'), /Run MCP tools as tasks/);
    });
});
