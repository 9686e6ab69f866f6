import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { readRows } from './drawnRows';
import { activateWithHooks, invoke, setTransport, startInVsCode, waitFor } from './util';

const server = () => vscode.workspace.getConfiguration('mcpTasks.server');

/** A Copilot call whose token is cancelled: VS Code's MCP client sends the server nothing, its polls just end. */
describe('a Copilot call that stops waiting', () => {
    let api: McpTasksTestApi;
    let tools: Map<string, vscode.LanguageModelToolInformation>;

    before(async () => {
        api = await activateWithHooks();
        await setTransport('http');
        // The shortest window the server takes (5 poll intervals), so the test need not wait 30 s.
        await server().update('abandonAfter', '5s', vscode.ConfigurationTarget.Global);
        // A running server restarts with it (after the settings check); one that was not running starts with it.
        await new Promise(resolve => setTimeout(resolve, 2000));
        await api.ensureServer();
        await waitFor('the owner connection', () => (api.testing.owner.connected ? true : undefined), 30_000);
        tools = await startInVsCode(60_000, api);
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
    });

    after(async () => {
        // The next suite must not meet the restart this causes: wait for the new server.
        const before = api.serverState().pid;
        await server().update('abandonAfter', undefined, vscode.ConfigurationTarget.Global);
        await waitFor('the server restarted with the default', () => {
            const { pid } = api.serverState();
            return pid && pid !== before && api.testing.owner.connected && !api.testing.settingsWaiting() ? true : undefined;
        }, 30_000, 100);
    });

    it('its row says in words that Copilot stopped waiting, not which protocol methods it no longer called', async () => {
        const { model } = api.testing;
        const label = 'copilot-stopped';
        const source = new vscode.CancellationTokenSource();
        const call = invoke(tools.get('slow_compute')!, { seconds: 60, label }, source.token).then(
            () => 'resolved',
            (err: Error) => err.message,
        );
        const view = await waitFor('the task in the tree', () => model.all().find(task => task.args.label === label), 10_000, 50);
        source.cancel();
        assert.match(await call, /Canceled/);
        await waitFor('the task cancelled for its caller', () => (view.status === 'cancelled' ? true : undefined), 20_000, 100);
        assert.equal(view.statusMessage, 'Cancelled: Copilot stopped waiting for it (no check for 5 s)');
        const drawn = await readRows('copilot-stopped', rows => rows.rows.some(row => row.label === label && row.description.startsWith('cancelled')));
        assert.ok(drawn.rows.some(row => row.label === label));
        assert.match(String(api.testing.tree.getTreeItem(view).tooltip instanceof vscode.MarkdownString ? (api.testing.tree.getTreeItem(view).tooltip as vscode.MarkdownString).value : ''), /Copilot stopped waiting for it/);
    });
});
