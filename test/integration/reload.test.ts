import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { askUi, finishedAndOpened, listAllTasks, ownerClient, readyWithTasksView, resultPreviewTab, waitFor } from './util';

const RESULT_TEXT = /Computation "reloaded" completed after 1 seconds?\. Result: 42\./;

/**
 * Kept results survive a window reload. This suite reloads its window, so it runs in a host of its
 * own (run.mjs --only=reload, which removes the note first): the first pass finishes a task, opens
 * its result, notes the task and reloads; the reloaded window runs the suite again and, finding the
 * note, checks the second half. The reload also replaced the server; the new one took the task over
 * from the durable store's file in the workspace's storage (--data-dir), so it is live again, not lost.
 */
describe('kept results after a window reload', () => {
    const note = join(process.env.MCP_TASKS_UI_DIR ?? '', 'reload-kept-result.json');

    it('lists a finished task whose result was opened again after the reload, from the new server; its restored tab and Show Result show the result', async () => {
        assert.ok(process.env.MCP_TASKS_UI_DIR, 'run by run.mjs, which gives the suite a folder that outlives the reload');
        const api = await readyWithTasksView();
        const { model, owner } = api.testing;
        if (!existsSync(note)) {
            const taskId = await finishedAndOpened(api, 'reloaded');
            // Its tab left open: VS Code brings it back after the reload.
            await vscode.commands.executeCommand('mcpTasks.showResult', model.get(taskId));
            await waitFor('the rendered result', () => resultPreviewTab('slow_compute: reloaded'));
            // Drawn: the preview has recorded what it shows, which VS Code keeps to restore it.
            const drawn = await askUi<{ pre: string[] }>('ui-result reload-before', 'result-reload-before.json');
            assert.ok(drawn.pre.some(block => RESULT_TEXT.test(block)), JSON.stringify(drawn));
            writeFileSync(note, JSON.stringify({ taskId, pid: api.serverState().pid }));
            await vscode.commands.executeCommand('workbench.action.reloadWindow');
            // The reload ends this extension host; if it never comes, the test fails here.
            await waitFor('the window to reload', () => undefined, 60_000, 1000);
            return;
        }
        const before = JSON.parse(readFileSync(note, 'utf8')) as { taskId: string; pid: number };
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
});
