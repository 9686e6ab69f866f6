import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { askUi, cleanUp, readyWithTasksView, waitFor } from './util';
import { everything, restarted, unwrap, waitForTools } from './wrapped';

/**
 * `mcpTasks.wrap` written in the User settings did nothing in a remote window (code-server, SSH, WSL):
 * it was machine-scoped, and VS Code gives a remote window's extensions a machine setting from the
 * Remote settings only (its configuration service reads the local User settings there with the
 * application, window, resource and language scopes). It is a window setting now, so the User value
 * reaches the server, and a Remote value still replaces it. code-server is such a remote window.
 */
describe('mcpTasks.wrap in the User settings of a remote window', () => {
    let api: McpTasksTestApi;

    before(async () => {
        api = await readyWithTasksView();
    });

    after(async function () {
        this.timeout(4 * 60_000);
        await cleanUp([
            ['unwrap', () => api && unwrap(api)],
            ['close the editors', () => vscode.commands.executeCommand('workbench.action.closeAllEditors')],
        ], 120_000);
    });

    it('set for the User, the value goes to the User settings file and wraps its server', async function () {
        this.timeout(4 * 60_000);
        assert.ok(vscode.env.remoteName, 'the host is a remote window (code-server)');
        // The file Preferences: Open User Settings (JSON) opens.
        await vscode.commands.executeCommand('workbench.action.openSettingsJson');
        const doc = await waitFor('the User settings file', () => vscode.window.activeTextEditor?.document);
        const userSettings = doc.uri.fsPath;
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        // As the Settings editor's User tab writes it. (This host's configuration does not follow a
        // write to the file from outside the editor, so the test cannot type into it.)
        await restarted(api, () => vscode.workspace.getConfiguration('mcpTasks').update('wrap', { everything: everything() }, vscode.ConfigurationTarget.Global));
        assert.match(readFileSync(userSettings, 'utf8'), /"mcpTasks\.wrap"/, 'in the User settings, not the Remote ones');
        assert.match(api.testing.wrap.text ?? '', /"everything"/, 'the User value reached the extension');
        await waitForTools(api, ['echo']);
        await vscode.commands.executeCommand('workbench.action.openSettings', 'mcpTasks.wrap');
        await askUi('ui-shot wrap-user-settings', 'wrap-user-settings.png');
    });
});
