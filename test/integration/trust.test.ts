import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpTasksTestApi } from '../../extension/api';
import { invoke, ownerClient, readyOverHttp, startInVsCode, toolNamed, waitFor } from './util';

// Workspace trust in a real VS Code: run.mjs starts this host with trust on, and the fixture folder
// (test/integration/fixtures/untrusted) opens in Restricted Mode. It declares a command tool in its
// .vscode/mcp-tasks.json and one in its workspace settings; user settings declare user_echo.

const USER_TOOL = 'user_echo';
const WORKSPACE_TOOLS = ['ws_file_echo', 'ws_setting_echo'];
const ALL = [USER_TOOL, ...WORKSPACE_TOOLS].sort();

/** The command tools of the fixture that the server lists (tools/list on its owner connection). */
async function servedCommandTools(client: Client): Promise<string[]> {
    const { tools } = await client.listTools();
    return tools.map(tool => tool.name).filter(name => ALL.includes(name)).sort();
}

describe('an untrusted workspace', () => {
    let api: McpTasksTestApi;
    let client: Client;
    let folder: string;

    before(async () => {
        folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
        api = await readyOverHttp();
        client = await ownerClient(api);
    });

    after(async () => {
        await client?.close();
    });

    it('opens in Restricted Mode, with workspace command declarations present', () => {
        assert.equal(vscode.workspace.isTrusted, false);
        // The declarations are there: only trust keeps them out.
        assert.ok(existsSync(join(folder, '.vscode', 'mcp-tasks.json')));
        assert.match(readFileSync(join(folder, '.vscode', 'settings.json'), 'utf8'), /"mcpTasks\.commands"[\s\S]*ws_setting_echo/);
    });

    it('the server the extension launched serves the user command tool and none of the workspace ones', async () => {
        await waitFor('the user command tool on the server', async () => ((await servedCommandTools(client)).includes(USER_TOOL) ? true : undefined), 30_000);
        assert.deepEqual(await servedCommandTools(client), [USER_TOOL]);
        assert.deepEqual([...api.testing.commandTools.tools.keys()], [USER_TOOL]);
    });

    it("VS Code's MCP client starts no server of ours before trust: it would ask for trust first", async () => {
        // VS Code counts an extension's MCP servers as the workspace's. Told not to ask (its modal
        // prompt would wait for a user; errorOnUserInteraction is the internal command's option),
        // it refuses for want of workspace trust.
        const start = vscode.commands.executeCommand('workbench.mcp.startServer', '*', { errorOnUserInteraction: true });
        await assert.rejects(Promise.resolve(start), /workspaceTrust/);
        assert.equal(toolNamed(USER_TOOL), undefined);
    });

    it('granting trust in the Workspace Trust editor serves the workspace tools, which VS Code then lists and runs', async function () {
        // Trust also starts the built-in extensions Restricted Mode held back: on a busy machine the
        // extension host is seen unresponsive for half a minute.
        this.timeout(240_000);
        let granted = false;
        const listener = vscode.workspace.onDidGrantWorkspaceTrust(() => (granted = true));
        await vscode.commands.executeCommand('workbench.trust.manage');
        // The UI driver clicks the editor's Trust button, as a user would.
        const request = vscode.window.setStatusBarMessage('ui-trust-workspace');
        try {
            await waitFor('the trust grant', () => granted || undefined, 120_000);
        } finally {
            request.dispose();
            listener.dispose();
        }
        assert.equal(vscode.workspace.isTrusted, true);
        await waitFor('the workspace command tools on the server', async () => ((await servedCommandTools(client)).length === ALL.length ? true : undefined), 30_000, 250);
        assert.deepEqual(await servedCommandTools(client), ALL);
        assert.deepEqual([...api.testing.commandTools.tools.keys()].sort(), ALL);

        await startInVsCode(60_000, api);
        await waitFor('the command tools in vscode.lm.tools', () => (ALL.every(name => toolNamed(name)) ? true : undefined), 60_000, 250);
        assert.match(await invoke(toolNamed('ws_file_echo')!, {}), /ws_file_echo ran/);
        assert.match(await invoke(toolNamed('ws_setting_echo')!, {}), /ws_setting_echo ran/);
    });
});
