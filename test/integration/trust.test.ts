import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpTasksTestApi } from '../../extension/api';
import { askUi, grantTrustInEditor, invoke, ownerClient, readyOverHttp, startInVsCode, toolNamed, waitFor } from './util';
import { everything } from './wrapped';

// Workspace trust in a real VS Code: run.mjs starts this host with trust on, and the fixture folder
// (test/integration/fixtures/untrusted) opens in Restricted Mode. It declares a command tool in its
// .vscode/mcp-tasks.json and one in its workspace settings, and exposes one of its tasks.json tasks
// with its workspace settings; user settings declare user_echo.

const USER_TOOL = 'user_echo';
const WORKSPACE_TOOLS = ['ws_file_echo', 'ws_setting_echo'];
const ALL = [USER_TOOL, ...WORKSPACE_TOOLS].sort();
/**
 * What the Tasks view's first row and the Run Tool picker say in Restricted Mode: the command in
 * .vscode/mcp-tasks.json, the one in the workspace settings and the tasks.json task those settings
 * expose. VS Code hides the settings' workspace values until trust: the extension counts them from
 * the settings file's text.
 */
const WAITING = '3 commands wait for trust';

interface DrawnRows {
    rows: { label: string; description: string; visibleLabel: string }[];
}
interface TitleActionReport {
    quickInput?: { title: string; choices: { label: string; description: string }[] };
}

function trustEditorOpen(): boolean {
    return vscode.window.tabGroups.all.some(group => group.tabs.some(tab => tab.label === 'Workspace Trust'));
}

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
        assert.match(readFileSync(join(folder, '.vscode', 'tasks.json'), 'utf8'), /ws_build/);
        // Why the extension reads the settings file's text to count: VS Code hides restricted settings' workspace values.
        const settings = vscode.workspace.getConfiguration('mcpTasks');
        assert.equal(settings.inspect('commands')?.workspaceValue, undefined);
        assert.equal(settings.inspect('exposeVsCodeTasks')?.workspaceValue, undefined);
    });

    it('the server the extension launched serves the user command tool and none of the workspace ones', async () => {
        await waitFor('the user command tool on the server', async () => ((await servedCommandTools(client)).includes(USER_TOOL) ? true : undefined), 30_000);
        assert.deepEqual(await servedCommandTools(client), [USER_TOOL]);
        assert.deepEqual([...api.testing.commandTools.tools.keys()], [USER_TOOL]);
    });

    it('a "wrap" entry in the folder\'s .vscode/mcp-tasks.json is not served before trust', async () => {
        const file = join(folder, '.vscode', 'mcp-tasks.json');
        const original = readFileSync(file, 'utf8');
        const wrap = { 'ws-everything': { ...everything(), args: ['${workspaceFolder}/../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'] } };
        writeFileSync(file, JSON.stringify({ ...JSON.parse(original), wrap }, null, 2));
        try {
            // Read now, as the file's watcher would: the entry waits for trust, so nothing is wrapped.
            api.testing.wrap.update();
            assert.equal(api.testing.wrap.text, undefined);
            assert.ok(!(await client.listTools()).tools.some(tool => tool.name === 'get-sum'), 'no wrapped tool on the server');
        } finally {
            writeFileSync(file, original);
            api.testing.wrap.update();
        }
    });

    it("VS Code's MCP client starts no server of ours before trust: it would ask for trust first", async () => {
        // VS Code counts an extension's MCP servers as the workspace's. Told not to ask (its modal
        // prompt would wait for a user; errorOnUserInteraction is the internal command's option),
        // it refuses for want of workspace trust.
        const start = vscode.commands.executeCommand('workbench.mcp.startServer', '*', { errorOnUserInteraction: true });
        await assert.rejects(Promise.resolve(start), /workspaceTrust/);
        assert.equal(toolNamed(USER_TOOL), undefined);
    });

    it('the Tasks view and the Run Tool picker say how many commands wait for trust, and open Manage Workspace Trust', async () => {
        assert.equal(api.testing.commandTools.waitingForTrust, 3);
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
        const drawn = await askUi<DrawnRows>('ui-read-rows trust-waiting', 'rows-trust-waiting.json');
        assert.deepEqual(drawn.rows[0], { ...drawn.rows[0], label: WAITING, description: 'Restricted Mode' });
        assert.equal(drawn.rows[0]?.visibleLabel, WAITING, 'the words fit the default sidebar');

        // Run Tool from the view's title bar, as a user opens it: the notice is the picker's first row.
        const picker = await askUi<TitleActionReport>('ui-title-action Run Tool :: trust-waiting', 'title-action-trust-waiting.json');
        const first = picker.quickInput?.choices[0];
        assert.equal(picker.quickInput?.title, 'MCP Tasks: Run Tool');
        assert.match(first?.label ?? '', new RegExp(`${WAITING}$`));
        assert.equal(first?.description, 'Manage Workspace Trust');

        // A click on the view's row opens the Workspace Trust editor.
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        assert.equal(trustEditorOpen(), false);
        const click = vscode.window.setStatusBarMessage(`ui-row-click ${WAITING}`);
        try {
            await waitFor('the Workspace Trust editor', () => trustEditorOpen() || undefined, 30_000);
        } finally {
            click.dispose();
        }
        await askUi('ui-shot trust-waiting-manage', 'trust-waiting-manage.png');
    });

    it('granting trust in the Workspace Trust editor serves the workspace tools, which VS Code then lists and runs', async function () {
        // Trust also starts the built-in extensions Restricted Mode held back: on a busy machine the
        // extension host is seen unresponsive for half a minute.
        this.timeout(240_000);
        await grantTrustInEditor();
        assert.equal(vscode.workspace.isTrusted, true);
        await waitFor('the workspace command tools on the server', async () => ((await servedCommandTools(client)).length === ALL.length ? true : undefined), 30_000, 250);
        assert.deepEqual(await servedCommandTools(client), ALL);
        // The exposed tasks.json task joins them once VS Code's task system lists it (not waited for here).
        assert.deepEqual([...api.testing.commandTools.tools.keys()].filter(name => name !== 'vscode_task_ws_build').sort(), ALL);

        await startInVsCode(60_000, api);
        await waitFor('the command tools in vscode.lm.tools', () => (ALL.every(name => toolNamed(name)) ? true : undefined), 60_000, 250);
        assert.match(await invoke(toolNamed('ws_file_echo')!, {}), /ws_file_echo ran/);
        assert.match(await invoke(toolNamed('ws_setting_echo')!, {}), /ws_setting_echo ran/);
        // Nothing waits any more: the notice row is gone.
        assert.equal(api.testing.commandTools.waitingForTrust, 0);
        assert.ok(!api.testing.tree.getChildren().some(row => !('taskId' in row)), 'no Restricted Mode row once trusted');
    });
});
