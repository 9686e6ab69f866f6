import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { readRows } from './drawnRows';
import { askUi, cleanUp, readyWithTasksView, waitFor } from './util';

const server = () => vscode.workspace.getConfiguration('mcpTasks.server');

/**
 * A question nobody answers ends when its task's time runs out (here mcpTasks.server.defaultTtl 5s):
 * the row says so, "expired · not answered in time", and stays until the user clears it. Before, it
 * said "needs input" until the next listing, then vanished without a word.
 */
describe('a question left unanswered until its time runs out', () => {
    let api: McpTasksTestApi;

    async function replaced(before: number | undefined): Promise<void> {
        await waitFor('the server restarted', () => {
            const { pid } = api.serverState();
            return pid && pid !== before && api.testing.owner.connected && !api.testing.settingsWaiting() ? true : undefined;
        }, 60_000, 100);
    }

    before(async () => {
        api = await readyWithTasksView();
        const before = api.serverState().pid;
        await server().update('defaultTtl', '5s', vscode.ConfigurationTarget.Global);
        await replaced(before);
    });

    after(async function () {
        this.timeout(3 * 60_000);
        await cleanUp([
            ['close the question', () => vscode.commands.executeCommand('workbench.action.closeQuickOpen')],
            ['reset defaultTtl', async () => {
                if (api && server().inspect('defaultTtl')?.globalValue !== undefined) {
                    const before = api.serverState().pid;
                    await server().update('defaultTtl', undefined, vscode.ConfigurationTarget.Global);
                    await replaced(before);
                }
            }],
            ['clear the rows', () => vscode.commands.executeCommand('mcpTasks.clearFinished')],
        ]);
    });

    it('the row says "expired · not answered in time" and stays until cleared', async () => {
        const { model, pendingInputs } = api.testing;
        const taskId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'confirm_delete', args: { filename: 'ui-expire.txt' }, mode: 'task' })) as string;
        assert.ok(taskId);
        await waitFor('the question open', () => pendingInputs.get(taskId), 30_000, 50);
        // The owner's next listing notices the task is gone (it lists every 30 s; asked here so the test does not wait on that timer).
        const view = await waitFor(
            'the task marked expired',
            async () => {
                await api.testing.owner.reconcile();
                return model.get(taskId)?.expired ? model.get(taskId) : undefined;
            },
            60_000,
            1000,
        );
        assert.equal(view.lost, true, 'over: no answer can reach it any more');
        await waitFor('the question closed', () => (pendingInputs.get(taskId) ? undefined : true), 30_000, 100);
        const drawn = await readRows('expired-question', rows => rows.rows.some(row => row.label === 'Expired: ui-expire.txt' && row.description.startsWith('not answered in time')));
        assert.ok(drawn.rows.some(row => row.label === 'Expired: ui-expire.txt' && row.description.startsWith('not answered in time')), JSON.stringify(drawn.rows));
        await askUi('ui-shot expired-question-row', 'expired-question-row.png');

        // Still listed after another listing: kept until the user clears it.
        await api.testing.owner.reconcile();
        assert.equal(model.get(taskId), view);
        await vscode.commands.executeCommand('mcpTasks.clearFinished');
        assert.equal(model.get(taskId), undefined, 'Clear Finished removes it');
    });
});
