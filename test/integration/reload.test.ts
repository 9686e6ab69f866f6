import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { findLogFile } from '../../extension/commandTools/outputLog';
import { askUi, declareWorkspaceCommands, finishedAndOpened, listAllTasks, ownerClient, readyWithTasksView, resultPreviewTab, startInVsCode, toolNamed, waitFor } from './util';

const FIXTURES = resolve(__dirname, '../../../test/integration/fixtures/commands');

/** Declares commands that print 20 lines and hold the last until a file exists (`gate`, and one that never does). */
function declareGatedCommand(gate: string): void {
    const held = (name: string, file: string) => ({ name, description: 'Prints 20 lines, the last once a file exists.', command: [process.execPath, join(FIXTURES, 'lines.js'), '20', '0', file] });
    // reload_held's gate never opens: it runs until it is cancelled. The declaration outlives the
    // reload (the second pass removes it), so its own remove() is not kept.
    declareWorkspaceCommands([held('reload_lines', gate), held('reload_held', `${gate}-never`)]);
}

function commandLog(api: McpTasksTestApi, taskId: string, tool = 'reload_lines'): string {
    const path = findLogFile(api.testing.commandTools.launch.logDir, tool, taskId);
    return path === undefined ? '' : readFileSync(path, 'utf8');
}

const RESULT_TEXT = /Computation "reloaded" completed after 1 seconds?\. Result: 42\./;

/**
 * Kept results survive a window reload. This suite reloads its window, so it runs in a host of its
 * own (run.mjs --only=reload, which removes the note first): the first pass finishes a task, opens
 * its result, notes the task and reloads; the reloaded window runs the suite again and, finding the
 * note, checks the second half. The reload also replaced the server; the new one took the task over
 * from the durable store's file in the workspace's storage (--data-dir), so it is live again, not lost.
 * A command task running at the reload goes on: the new server takes it over (commands/adopt.ts),
 * and it ends with every line, from before and after the reload.
 */
describe('kept results after a window reload', () => {
    const note = join(process.env.MCP_TASKS_UI_DIR ?? '', 'reload-kept-result.json');

    it('lists a finished task whose result was opened again after the reload, from the new server; its restored tab and Show Result show the result', async () => {
        assert.ok(process.env.MCP_TASKS_UI_DIR, 'run by run.mjs, which gives the suite a folder that outlives the reload');
        const api = await readyWithTasksView();
        const { model, owner } = api.testing;
        const gate = join(process.env.MCP_TASKS_UI_DIR!, 'reload-gate');
        if (!existsSync(note)) {
            const taskId = await finishedAndOpened(api, 'reloaded');
            // Its tab left open: VS Code brings it back after the reload.
            await vscode.commands.executeCommand('mcpTasks.showResult', model.get(taskId));
            await waitFor('the rendered result', () => resultPreviewTab('slow_compute: reloaded'));
            // Drawn: the preview has recorded what it shows, which VS Code keeps to restore it.
            const drawn = await askUi<{ pre: string[] }>('ui-result reload-before', 'result-reload-before.json');
            assert.ok(drawn.pre.some(block => RESULT_TEXT.test(block)), JSON.stringify(drawn));
            rmSync(gate, { force: true });
            declareGatedCommand(gate);
            // Served once VS Code's MCP client lists it (a first command file restarts the server with it).
            await startInVsCode(60_000, api);
            await waitFor('the workspace command tool served', () => toolNamed('reload_lines'), 60_000, 250);
            const commandId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'reload_lines', args: {}, mode: 'task' })) as string;
            const heldId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'reload_held', args: {}, mode: 'task' })) as string;
            await waitFor('the commands holding their last line', () => (/line 19\/20\n$/.test(commandLog(api, commandId)) && /line 19\/20\n$/.test(commandLog(api, heldId, 'reload_held'))) || undefined, 30_000, 100);
            assert.ok(resultPreviewTab('slow_compute: reloaded'), 'the result tab is still open for the reload');
            writeFileSync(note, JSON.stringify({ taskId, commandId, heldId, pid: api.serverState().pid }));
            await vscode.commands.executeCommand('workbench.action.reloadWindow');
            // The reload ends this extension host; if it never comes, the test fails here.
            await waitFor('the window to reload', () => undefined, 60_000, 1000);
            return;
        }
        const before = JSON.parse(readFileSync(note, 'utf8')) as { taskId: string; commandId: string; pid: number };
        // The tab VS Code restored shows the result, before anything here opened it again (it said
        // "This result is no longer available" while Show Result on the row worked).
        await waitFor('the restored result tab', () => resultPreviewTab('slow_compute: reloaded'), 60_000);
        const restored = await askUi<{ text: string; pre: string[] }>('ui-result reload-restored-tab', 'result-reload-restored-tab.json');
        assert.ok(restored.pre.some(block => RESULT_TEXT.test(block)), `the restored tab shows: ${JSON.stringify(restored)}`);
        assert.doesNotMatch(restored.text, /no longer available/);
        const view = await waitFor('the kept task listed again by the new server', () => {
            const kept = model.get(before.taskId);
            return kept && !kept.lost ? kept : undefined;
        });
        assert.equal(view.status, 'completed');
        assert.notEqual(api.serverState().pid, before.pid, 'a new server');
        const client = await ownerClient(api);
        try {
            assert.ok((await listAllTasks(client)).some(task => task.taskId === before.taskId), 'the new server took the task over from the file');
        } finally {
            await client.close();
        }
        const uri = (await vscode.commands.executeCommand('mcpTasks.showResult', view)) as vscode.Uri | undefined;
        assert.ok(uri, 'Show Result opened the kept result');
        assert.match((await vscode.workspace.openTextDocument(uri)).getText(), RESULT_TEXT);
        // As the user sees it: the row of a previous server, and its result open.
        await waitFor('the rendered result', () => resultPreviewTab('slow_compute: reloaded'));
        const drawn = await askUi<{ pre: string[] }>('ui-result reload-kept-result', 'result-reload-kept-result.json');
        assert.ok(drawn.pre.some(block => block.startsWith('Computation "reloaded" completed')), JSON.stringify(drawn.pre));
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        // Clear Finished forgets it, kept copy included.
        await vscode.commands.executeCommand('mcpTasks.clearFinished');
        assert.equal(model.get(before.taskId), undefined);
        assert.equal(owner.hasResult(before.taskId), false);
    });

    it('follows the commands that were running at the reload: the new server took them over; one is cancelled from the sidebar, the other ends with every line', async () => {
        const api = await readyWithTasksView();
        const before = JSON.parse(readFileSync(note, 'utf8')) as { commandId: string; heldId: string };
        const gate = join(process.env.MCP_TASKS_UI_DIR!, 'reload-gate');
        try {
            // Still cancellable from the sidebar: the new server stops the command it took over.
            const held = await waitFor('the held command listed running by the new server', () => {
                const row = api.testing.model.get(before.heldId);
                return row && !row.lost && row.status === 'working' ? row : undefined;
            }, 60_000);
            await vscode.commands.executeCommand('mcpTasks.cancelTask', held);
            await waitFor('the held command cancelled', () => api.testing.model.get(before.heldId)?.status === 'cancelled' || undefined, 30_000, 100);
            const view = await waitFor('the command listed running by the new server, not lost', () => {
                const row = api.testing.model.get(before.commandId);
                return row && !row.lost && row.status === 'working' ? row : undefined;
            }, 60_000);
            assert.equal(view.toolName, 'reload_lines');
            writeFileSync(gate, '');
            await waitFor('the command to complete', () => api.testing.model.get(before.commandId)?.status === 'completed' || undefined, 30_000, 100);
            assert.match(commandLog(api, before.commandId), /^line 1\/20\n[\s\S]*\nline 19\/20\nline 20\/20\n$/);
        } finally {
            rmSync(gate, { force: true });
            rmSync(join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.vscode', 'mcp-tasks.json'), { force: true });
        }
    });
});
