import * as assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { isTerminal, type TaskView } from '../../extension/tasks/taskView';
import { processRunning } from '../../server/src/platform/index';
import { readRows } from './drawnRows';
import { cleanUp, declareWorkspaceCommands, type DeclaredCommands, invoke, readyOverHttp, startInVsCode, toolNamed, waitFor } from './util';

const FIXTURES = resolve(__dirname, '../../../test/integration/fixtures/commands');
const server = () => vscode.workspace.getConfiguration('mcpTasks.server');

/**
 * A Copilot call whose token is cancelled: VS Code's MCP client sends the server nothing, its
 * polls just end. The server notices the missed polls: the row says "Copilot stopped waiting"
 * (4 s) and offers Cancel; with the default the work (a declared command's whole process tree)
 * is stopped (10 s), with `keep` it runs until the user's Cancel. Each wait is on a state the test can see, never a fixed sleep.
 */
describe('a Copilot call that stops waiting', () => {
    // Both still unset in the after hook when the before hook failed early.
    let api: McpTasksTestApi;
    let declared: DeclaredCommands | undefined;
    /** Every process a test saw started: the after hook stops any a failed test left running. */
    const started: number[] = [];

    /** Starts it_hold through VS Code's MCP client, then cancels the call's token once its processes run. */
    async function callAndStop(): Promise<{ view: TaskView; pids: number[] }> {
        const before = new Set(api.testing.model.all().map(task => task.taskId));
        const source = new vscode.CancellationTokenSource();
        const call = invoke(toolNamed('it_hold')!, {}, source.token).then(
            () => 'resolved',
            (err: Error) => err.message,
        );
        const view = await waitFor('the it_hold task in the tree', () => api.testing.model.all().find(task => task.toolName === 'it_hold' && !before.has(task.taskId)), 30_000, 50);
        const editor = (await vscode.commands.executeCommand<vscode.TextEditor>('mcpTasks.showOutput', view))!;
        const pids = JSON.parse(await waitFor('the pids line', () => /pids (\[[\d,]+\])/.exec(editor.document.getText())?.[1], 30_000, 50)) as number[];
        started.push(...pids);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        assert.ok(pids.every(processRunning), 'the command and its grandchildren run');
        source.cancel();
        assert.match(await call, /Canceled/);
        return { view, pids };
    }

    /** The server restarts after a launch setting changes: wait for the new one. */
    async function replaced(before: number | undefined): Promise<void> {
        await waitFor('the server restarted', () => {
            const { pid } = api.serverState();
            return pid && pid !== before && api.testing.owner.connected && !api.testing.settingsWaiting() ? true : undefined;
        }, 60_000, 100);
    }

    /** ...and for VS Code to list the command tool from it. */
    async function restarted(before: number | undefined): Promise<void> {
        await replaced(before);
        await waitFor('it_hold from the new server', async () => {
            await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true, autoTrustChanges: true });
            return toolNamed('it_hold');
        }, 60_000, 1000);
    }

    before(async () => {
        api = await readyOverHttp();
        await startInVsCode(60_000, api);
        declared = declareWorkspaceCommands([{ name: 'it_hold', description: 'Starts grandchildren and waits.', command: [process.execPath, join(FIXTURES, 'tree.js')], killGraceMs: 1000 }]);
        await waitFor('it_hold in vscode.lm.tools', () => toolNamed('it_hold'), 60_000, 250);
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
    });

    // A failed test may leave its work running (with "keep" nothing else stops it), the setting changed and the
    // tool declared: undo each, whatever else fails, so the next suites start from the state they expect.
    after(async function () {
        this.timeout(5 * 60_000);
        await cleanUp([
            ['cancel the it_hold tasks still running', async () => {
                for (const view of api?.testing.model.all().filter(task => task.toolName === 'it_hold' && !isTerminal(task.status)) ?? []) {
                    await vscode.commands.executeCommand('mcpTasks.cancelTask', view);
                }
            }],
            ['stop their processes', () => {
                for (const pid of started.filter(processRunning)) {
                    process.kill(pid, 'SIGKILL');
                }
            }],
            ['remove the declaration', () => {
                declared?.remove();
            }],
            ['reset stoppedWaiting', async () => {
                if (api && server().inspect('stoppedWaiting')?.globalValue !== undefined) {
                    // The next suite must not meet the restart this causes: wait for the new server.
                    const before = api.serverState().pid;
                    await server().update('stoppedWaiting', undefined, vscode.ConfigurationTarget.Global);
                    await replaced(before);
                }
            }],
            ['the command tools gone', () => api && waitFor('the command tools gone', () => (api.testing.commandTools.tools.size === 0 ? true : (api.testing.commandTools.update(), undefined)), 30_000)],
        ], 90_000);
    });

    it('by default the work is stopped once the polls have stayed away (10 s): the command and its grandchildren are gone, and the row says Copilot stopped waiting', async () => {
        const { view, pids } = await callAndStop();
        // What ended it is in its message (the missed polls, 10 s, not --abandon-after's 30 s): the wait is only bounded, generously for a loaded machine.
        await waitFor('the task cancelled once its polls stopped', () => (view.status === 'cancelled' ? true : undefined), 60_000, 100);
        assert.equal(view.statusMessage, 'Cancelled: Copilot stopped waiting for it (no check for 10 s)');
        assert.deepEqual(pids.filter(processRunning), [], 'the whole process tree was stopped with the task');
        const drawn = await readRows('copilot-stopped', rows => rows.rows.some(row => row.label === 'Cancelled: it_hold' && row.description.startsWith('Copilot stopped waiting')));
        assert.ok(drawn.rows.some(row => row.label === 'Cancelled: it_hold' && row.description.startsWith('Copilot stopped waiting')), JSON.stringify(drawn.rows));
    });

    it('with stoppedWaiting "keep" the row says "Copilot stopped waiting" while the work runs on, and its Cancel stops it', async () => {
        const before = api.serverState().pid;
        await server().update('stoppedWaiting', 'keep', vscode.ConfigurationTarget.Global);
        await restarted(before);
        await vscode.commands.executeCommand('mcpTasks.clearFinished');
        const { view, pids } = await callAndStop();
        await waitFor('the row marked', () => (view.stoppedWaitingAt ? true : undefined), 60_000, 100);
        assert.equal(view.status, 'working');
        assert.ok(pids.every(processRunning), 'the work keeps running');
        const drawn = await readRows('copilot-stopped-kept', rows => rows.rows.some(row => row.label === 'Running: it_hold' && row.description.startsWith('Copilot stopped waiting')));
        assert.ok(drawn.rows.some(row => row.label === 'Running: it_hold' && row.description.startsWith('Copilot stopped waiting')), JSON.stringify(drawn.rows));
        // The UI driver clicks the marked row's inline Cancel, as a user would.
        const request = vscode.window.setStatusBarMessage('ui-row-action it_hold, Copilot stopped waiting :: Cancel Task');
        try {
            await waitFor('cancelled by the click', () => (view.status === 'cancelled' ? true : undefined), 60_000, 50);
        } finally {
            request.dispose();
        }
        assert.equal(view.statusMessage, 'Cancelled from the MCP Tasks sidebar');
        assert.deepEqual(pids.filter(processRunning), []);
    });
});
