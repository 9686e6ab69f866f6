import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { CORE_TOOL_NAMES, askUi, cleanUp, readNotifications, readyWithTasksView } from './util';
import { everything, restarted, servedTools, setWrap, unwrap } from './wrapped';

const mcpTasks = () => vscode.workspace.getConfiguration('mcpTasks');
const NOTICE = /^MCP Tasks offers no demonstration tools while it wraps other MCP servers, although Demo Tools is on/;

/**
 * Wrapping a server hid the demonstration tools while the Demo Tools setting stayed ticked, and
 * nothing said why. A server that wraps others still leaves them out (they would be in the way of
 * the real tools), and now the setting's description says so, and a user who turned Demo Tools on
 * themselves is told when wrapping starts, with Open Settings. Needs the Playwright UI driver.
 */
describe('Demo Tools while servers are wrapped', () => {
    let api: McpTasksTestApi;

    before(async () => {
        api = await readyWithTasksView();
    });

    after(async function () {
        this.timeout(4 * 60_000);
        await cleanUp([
            ['Demo Tools back to its default', () => mcpTasks().update('demoTools', undefined, vscode.ConfigurationTarget.Global)],
            ['unwrap', () => api && unwrap(api)],
            ['close the editors', () => vscode.commands.executeCommand('workbench.action.closeAllEditors')],
        ], 120_000);
    });

    it('Demo Tools turned on and a server wrapped: a notification says the demonstration tools are not offered, and why', async function () {
        this.timeout(4 * 60_000);
        // Set by the user, as the notice wants; the server restarts only if that changes what it runs with
        // (true is the default), and waiting for a restart that never came cost this suite 90 s.
        const turnOn = () => mcpTasks().update('demoTools', true, vscode.ConfigurationTarget.Global);
        await (mcpTasks().get<boolean>('demoTools') ? turnOn() : restarted(api, turnOn));
        await vscode.commands.executeCommand('notifications.clearAll');
        await setWrap(api, { everything: everything() }, ['echo']);
        const served = await servedTools(api);
        assert.deepEqual(CORE_TOOL_NAMES.filter(name => served.includes(name)), [], 'no demonstration tool is served while wrapping');

        const { found, all } = await readNotifications('demo-tools-wrapped', note => NOTICE.test(note.message), 30_000);
        assert.ok(found, `no notification about the demonstration tools; the center holds ${JSON.stringify(all)}`);
        assert.match(found.message, /Remove the servers from mcpTasks\.wrap to get the demonstration tools back\.$/);
        assert.deepEqual(found.buttons, ['Open Settings']);

        // The setting says it too, beside its checkbox.
        await vscode.commands.executeCommand('workbench.action.openSettings', 'mcpTasks.demoTools');
        await askUi('ui-shot demo-tools-setting-wrapped', 'demo-tools-setting-wrapped.png');
    });
});
