import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { askUi, readNotifications, readyWithTasksView, waitFor } from './util';

const server = () => vscode.workspace.getConfiguration('mcpTasks.server');

/** Needs the Playwright UI driver: reads the Notifications Center a user would open, and photographs it. */
describe('server settings it refuses, and a server that cannot start', () => {
    let api: McpTasksTestApi;

    before(async () => {
        api = await readyWithTasksView();
        // The view's welcome shows only while it has no rows.
        await vscode.commands.executeCommand('mcpTasks.clearFinished');
    });

    after(async () => {
        // Left set by a failed test: its reset restarts the server, which the next suite must not meet.
        if (server().inspect('defaultTtl')?.globalValue !== undefined) {
            const before = api.serverState().pid;
            await server().update('defaultTtl', undefined, vscode.ConfigurationTarget.Global);
            await waitFor('the server restarted with the default', () => {
                const { pid } = api.serverState();
                return pid && pid !== before && api.testing.owner.connected && !api.testing.settingsWaiting() ? true : undefined;
            }, 30_000, 100);
        }
    });

    it('a default TTL above the maximum is refused when set: the server keeps running, and a notification names both settings', async () => {
        const pid = api.serverState().pid;
        assert.ok(pid);
        await server().update('defaultTtl', '48h', vscode.ConfigurationTarget.Global);
        const { found, all } = await readNotifications('settings-refused', note => /did not apply the new settings/.test(note.message));
        assert.ok(found, `no notification about the settings; the center holds ${JSON.stringify(all)}`);
        assert.match(found.message, /mcpTasks\.server\.defaultTtl must not exceed mcpTasks\.server\.maxTtl/);
        assert.deepEqual(found.buttons, ['Open Settings', 'Show Log']);
        assert.equal(api.serverState().pid, pid, 'the same server still runs');
        assert.equal(api.testing.owner.connected, true);
    });

    it('a restart that fails is shown like a crash: a status bar error, the view says so, and a notification quotes the reason with Open Settings, Show Log and Restart Server', async () => {
        // Running tasks would make Restart Server ask first (earlier suites may leave some).
        for (const view of api.testing.model.running()) {
            await api.testing.owner.cancel(view.taskId).catch(() => undefined);
        }
        await waitFor('nothing running', () => (api.testing.model.running().length === 0 ? true : undefined), 10_000, 100);
        // The refused settings are still set: Restart Server launches with them.
        await vscode.commands.executeCommand('mcpTasks.restartServer');
        const { statusBar } = api.testing;
        await waitFor('the status bar error', () => (statusBar.visible && statusBar.text === '$(error) MCP Tasks' ? true : undefined), 20_000, 100);
        const { found, all } = await readNotifications('start-failed', note => /could not start/.test(note.message));
        assert.ok(found, `no notification about the failed start; the center holds ${JSON.stringify(all)}`);
        assert.equal(found.message, 'MCP Tasks server could not start: mcpTasks.server.defaultTtl must not exceed mcpTasks.server.maxTtl');
        assert.deepEqual(found.buttons, ['Open Settings', 'Show Log', 'Restart Server']);
        // The view and the status bar as a user finds them, once the center is closed again.
        await askUi('ui-shot server-start-failed', 'server-start-failed.png');

        // Fixing the setting brings the server back.
        await server().update('defaultTtl', undefined, vscode.ConfigurationTarget.Global);
        await waitFor('the server back', () => (api.testing.owner.connected && api.serverState().pid ? true : undefined), 30_000);
        await waitFor('the status bar error gone', () => (!statusBar.visible || statusBar.text !== '$(error) MCP Tasks' ? true : undefined), 5000, 100);
    });
});
