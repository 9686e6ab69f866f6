import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { OWN_CLIENT_NAME } from '../../extension/owner/ownerConnection';
import { protocolTerms } from '../support/userText';
import { cleanUp, readNotifications, readyWithTasksView, waitFor } from './util';

const mcpTasks = () => vscode.workspace.getConfiguration('mcpTasks');

/** The active tab's label, once `wanted` accepts it. */
function activeTab(what: string, wanted: (label: string) => boolean): Promise<string> {
    return waitFor(what, () => {
        const label = vscode.window.tabGroups.activeTabGroup.activeTab?.label;
        return label !== undefined && wanted(label) ? label : undefined;
    }, 15_000, 100);
}

/**
 * A transport MCP Tasks does not know and a commands file it cannot use were ignored without a word:
 * each is said now, in plain words (what is wrong, where, what is used instead), with the button that
 * opens the place to fix it. Needs the Playwright UI driver: reads the Notifications Center and clicks.
 */
describe('settings and files MCP Tasks cannot use', () => {
    let api: McpTasksTestApi;
    let file: string;
    let dotVscode: string;
    let createdDotVscode = false;

    before(async () => {
        api = await readyWithTasksView();
        dotVscode = join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.vscode');
        file = join(dotVscode, 'mcp-tasks.json');
        createdDotVscode = !existsSync(dotVscode);
    });

    beforeEach(() => vscode.commands.executeCommand('notifications.clearAll'));

    after(async function () {
        this.timeout(2 * 60_000);
        await cleanUp([
            ['the transport setting removed', () => mcpTasks().update('transport', undefined, vscode.ConfigurationTarget.Global)],
            ['close the editors', () => vscode.commands.executeCommand('workbench.action.closeAllEditors')],
            ['remove the file', () => {
                rmSync(file, { force: true });
                if (createdDotVscode) {
                    rmSync(dotVscode, { recursive: true, force: true });
                }
            }],
            ['the command tools gone', () => api && waitFor('the command tools gone', () => (api.testing.commandTools.tools.size === 0 ? true : (api.testing.commandTools.update(), undefined)), 30_000)],
        ]);
    });

    it('transport "bogus": a notification says it is not known, that http is used, and Open Settings opens the setting', async () => {
        await mcpTasks().update('transport', 'bogus', vscode.ConfigurationTarget.Global);
        const { found, all } = await readNotifications('transport-bogus', note => /transport "bogus"/.test(note.message), 20_000, 'Open Settings');
        assert.ok(found, `no notification about the transport; the center holds ${JSON.stringify(all)}`);
        assert.equal(found.message, 'MCP Tasks does not know the transport "bogus" in the setting mcpTasks.transport: it can be "http" or "stdio". It uses "http" until the setting is fixed.');
        assert.deepEqual(found.buttons, ['Open Settings']);
        assert.deepEqual(protocolTerms(found.message, OWN_CLIENT_NAME), []);
        assert.equal(api.serverState().transport, 'http', 'what the notification says is used');
        await activeTab('the Settings editor', label => label === 'Settings');
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    it('a commands file that is not valid JSON, then one with a wrong entry: each is said, and Open File opens the file', async () => {
        mkdirSync(dotVscode, { recursive: true });
        writeFileSync(file, '{"tools": [\n');
        const broken = await readNotifications('commands-file-broken', note => /cannot read the commands in/.test(note.message), 30_000, 'Open File');
        assert.ok(broken.found, `no notification about the file; the center holds ${JSON.stringify(broken.all)}`);
        assert.match(broken.found.message, /^MCP Tasks cannot read the commands in .+mcp-tasks\.json: not valid JSON: .+\. It serves no command from this file until the file is fixed\.$/);
        assert.deepEqual(broken.found.buttons, ['Open File']);
        assert.deepEqual(protocolTerms(broken.found.message, OWN_CLIENT_NAME), []);
        await activeTab('the file open', label => label === 'mcp-tasks.json');
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');

        await vscode.commands.executeCommand('notifications.clearAll');
        writeFileSync(file, JSON.stringify({ tools: [{ name: 'it_wrong', description: 'No command.' }] }));
        const wrong = await readNotifications('commands-entry-wrong', note => /leaves out a command/.test(note.message), 30_000);
        assert.ok(wrong.found, `no notification about the entry; the center holds ${JSON.stringify(wrong.all)}`);
        assert.match(wrong.found.message, /^MCP Tasks leaves out a command: .+mcp-tasks\.json: \[0\].+\. The other commands are served\.$/);
        assert.deepEqual(wrong.found.buttons, ['Open File']);
        assert.equal(api.testing.commandTools.tools.has('it_wrong'), false);
    });
});
