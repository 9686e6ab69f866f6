import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { askUi, cleanUp, readyWithTasksView, startSlowCompute, waitFor } from './util';

/**
 * Needs the Playwright UI driver: a row's context menu offers every action of its row, with the same
 * question before a Cancel as Delete asks, and rows Clear Finished removed stay removed.
 */
describe("the Tasks view's row menu and Clear Finished", () => {
    let api: McpTasksTestApi;

    before(async () => (api = await readyWithTasksView()));

    after(async () => {
        await cleanUp([
            ['cancel what still runs', () => Promise.all(api.testing.model.running().map(view => api.testing.owner.cancel(view.taskId).catch(() => undefined)))],
            ['clear the rows', () => vscode.commands.executeCommand('mcpTasks.clearFinished')],
        ]);
    });

    it('a waiting row offers Respond and a Cancel that asks first; a running row only that Cancel', async () => {
        const { model, pendingInputs } = api.testing;
        const file = 'ui-hold-menu.txt';
        void vscode.commands.executeCommand('mcpTasks.runTool', { name: 'confirm_delete', args: { filename: file }, mode: 'task' });
        const view = await waitFor('the question', () => model.all().find(v => v.toolName === 'confirm_delete' && v.keyArgument === file && v.status === 'input_required' && pendingInputs.get(v.taskId)), 20_000, 50);
        // The question is on screen (the driver leaves it alone): Escape hides it, and it waits for Respond.
        const keys = await askUi<{ activity: string }>(`ui-keys hold-menu :: in:question Escape`, 'keys-hold-menu.json');
        await waitFor('the question hidden', () => pendingInputs.get(view.taskId)?.hidden || undefined, 10_000, 50);
        // As VS Code names "Testing - 1 failed tests": the waiting count reaches the activity bar in words.
        assert.match(keys.activity, /MCP Tasks.*1 task needs your answer/, `the activity bar's name: ${keys.activity}`);
        const waiting = await askUi<string[]>(`ui-row-menu ${file}`, `row-menu-${file}.json`);
        assert.ok(waiting.includes('Respond'), `Respond is in the menu: ${waiting.join(' | ')}`);
        assert.ok(waiting.includes('Cancel Task…'), `Cancel asks first, as Delete does: ${waiting.join(' | ')}`);
        assert.ok(!waiting.includes('Cancel Task'), `no Cancel that stops at once: ${waiting.join(' | ')}`);
        assert.equal(model.get(view.taskId)?.status, 'input_required');
        await api.testing.owner.cancel(view.taskId);

        const running = await startSlowCompute(60, 'menu-running');
        await waitFor('the row running', () => (model.get(running)?.status === 'working' ? true : undefined), 10_000, 50);
        const menu = await askUi<string[]>('ui-row-menu menu-running', 'row-menu-menu-running.json');
        assert.ok(menu.includes('Cancel Task…') && !menu.includes('Cancel Task') && !menu.includes('Respond'), menu.join(' | '));
        await api.testing.owner.cancel(running);
    });

    it('a task started here that fails while the view is on screen is said once', async () => {
        const { model } = api.testing;
        await askUi('ui-live-record view-ending', 'live-record-view-ending.json');
        const taskId = await vscode.commands.executeCommand<string>('mcpTasks.runTool', { name: 'failing_job', args: {}, mode: 'task' });
        await waitFor('failed', () => (model.get(taskId)?.status === 'failed' ? true : undefined), 20_000, 50);
        // The notification's alert is drawn after the model changes: give it a moment to be handed over.
        await new Promise(resolve => setTimeout(resolve, 1500));
        const heard = await askUi<string[]>('ui-live-read view-ending', 'live-view-ending.json');
        const endings = heard.filter(text => /failing_job.*failed|failed.*failing_job/i.test(text) && /MCP Tasks/.test(text));
        assert.equal(endings.length, 1, `the ending is said once: ${JSON.stringify(heard)}`);
    });

    it('Clear Finished stays cleared when the list is read again', async () => {
        const { model } = api.testing;
        const done = await startSlowCompute(0.1, 'cleared-row');
        await waitFor('finished', () => (model.get(done)?.status === 'completed' ? true : undefined), 20_000, 50);
        await vscode.commands.executeCommand('mcpTasks.clearFinished');
        assert.equal(model.get(done), undefined);
        // The server keeps a finished task for its TTL: reading its list again must not bring the row back.
        await vscode.commands.executeCommand('mcpTasks.refresh');
        assert.equal(model.get(done), undefined, 'the cleared row came back');
    });
});
