import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { readRows } from './drawnRows';
import { invoke, readNotifications, readyWithTasksView, waitFor } from './util';
import { cancelFromSidebar, everything, LONG, LONG_TITLE, restarted, screenshotSince, sentProgress, servedTools, setWrap, startLongCall, tappedEverything, unwrap, waitForTools } from './wrapped';

/**
 * The gateway inside VS Code: a server moved from mcp.json to mcpTasks.wrap (the pinned
 * server-everything, a real process) is served by our server, Copilot's path (vscode.lm.invokeTool)
 * calls its long tool as a task, the sidebar shows it with progress, and Cancel there cancels the
 * downstream call. Needs the Playwright UI driver (it reads and photographs the drawn rows).
 */
describe('a wrapped MCP server (mcpTasks.wrap) in VS Code', () => {
    let api: McpTasksTestApi;
    /** Where the wrapped server-everything logs the progress it sends (tappedEverything). */
    const progressLog = join(mkdtempSync(join(tmpdir(), 'mcp-tasks-progress-')), 'sent.jsonl');

    before(async function () {
        this.timeout(240_000);
        api = await readyWithTasksView();
    });

    after(async function () {
        this.timeout(240_000);
        rmSync(dirname(progressLog), { recursive: true, force: true });
        await unwrap(api);
    });

    it("Copilot calls its long tool as a task: the sidebar row shows progress, and Cancel there cancels the downstream call", async function () {
        this.timeout(300_000);
        const tools = await setWrap(api, { everything: tappedEverything(progressLog, ['echo']) }, [LONG, 'echo']);
        assert.match(api.testing.wrap.text ?? '', /"everything"/);
        const { tree } = api.testing;
        const { view, settled } = await startLongCall(api, tools.get(LONG)!);
        // Named by its tool's declared title (it has no key argument), with the wrapped server's progress.
        assert.equal(String(tree.getTreeItem(view).label), `Running: ${LONG_TITLE}`);
        assert.match(String(tree.getTreeItem(view).description), /^\d+% · (<1m|\d+m)$/);
        // The row as drawn, with its progress; the driver photographs it (rows-gateway-progress.png) before Cancel.
        const label = String(tree.getTreeItem(view).label);
        const since = Date.now();
        const drawn = await readRows('gateway-progress', shown => shown.rows.some(row => row.label === label && /^\d+%/.test(row.description)));
        await waitFor('the screenshot of the running row', () => screenshotSince('rows-gateway-progress', since), 30_000, 100);
        const row = drawn.rows.find(candidate => candidate.label === label);
        assert.ok(row, `a row "${label}" in ${JSON.stringify(drawn.rows.map(r => r.label))}`);
        assert.match(row.description, /^\d+% · (<1m|\d+m)$/);

        // The call's progress token on the wrapped server: the one its updates so far carried (it is the only call there).
        const token = sentProgress(progressLog).at(-1)?.token;
        assert.ok(token !== undefined, 'the tap saw the wrapped server report progress');
        await cancelFromSidebar(api, view, settled, 'everything');
        const progressAtCancel = view.progress?.progress;
        const sentAtCancel = sentProgress(progressLog).length;
        // server-everything ignores the cancel and goes on reporting progress (every 2 s): wait until it has sent
        // two more updates for the cancelled call, so what follows is no guess about time.
        await waitFor('two more progress updates from the wrapped server after the cancel', () => (sentProgress(progressLog).slice(sentAtCancel).filter(sent => sent.token === token).length >= 2 ? true : undefined), 60_000, 200);
        // A second call's progress is sent after those updates on the same pipe and reaches the sidebar the same
        // way (the owner's progress notifications, in order): once it shows, anything the gateway made of them has arrived.
        const second = await startLongCall(api, tools.get(LONG)!);
        assert.equal(view.progress?.progress, progressAtCancel, "the wrapped server's later progress no longer reaches the cancelled task");
        await cancelFromSidebar(api, second.view, second.settled, 'everything');
        await readRows('gateway-cancelled', shown => shown.rows.some(r => r.label === `Cancelled: ${LONG_TITLE}`));
    });

    it('a malformed entry is named in a notification with Open Settings, and the other servers are served', async function () {
        this.timeout(300_000);
        const tools = await setWrap(api, { good: everything(), bad: { type: 'sse', url: 'http://127.0.0.1:1/sse' } }, ['get-sum']);
        assert.match(await invoke(tools.get('get-sum')!, { a: 2, b: 3 }), /5/);
        const { found, all } = await readNotifications('wrap-problem', note => note.message.includes('server "bad"'));
        assert.ok(found, `a notification about "bad" among ${JSON.stringify(all.map(note => note.message))}`);
        assert.match(found.message, /MCP Tasks does not wrap this server: user settings \(mcpTasks\.wrap\): server "bad": type "sse" is not supported; use "stdio" \(command\) or "http" \(url\)/);
        assert.ok(found.buttons.includes('Open Settings'), `its buttons: ${found.buttons.join(', ')}`);
        await vscode.commands.executeCommand('notifications.clearAll');
        await vscode.commands.executeCommand('notifications.hideList');
    });

    it("a trusted workspace's .vscode/mcp-tasks.json \"wrap\" entry is served", async function () {
        this.timeout(300_000);
        const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
        assert.equal(vscode.workspace.isTrusted, true);
        const dotVscode = join(folder, '.vscode');
        const file = join(dotVscode, 'mcp-tasks.json');
        const made = mkdirSync(dotVscode, { recursive: true });
        // Nothing in user settings: the file's entry alone, its path written with ${workspaceFolder}.
        // The server restarts without the setting's servers first, so no restart is still queued when the file's is served.
        await restarted(api, () => vscode.workspace.getConfiguration('mcpTasks').update('wrap', undefined, vscode.ConfigurationTarget.Global));
        assert.ok(!(await servedTools(api)).includes('get-sum'), 'nothing wrapped');
        const entry = { ...everything(), args: ['${workspaceFolder}/../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'] };
        try {
            await restarted(api, () => writeFileSync(file, JSON.stringify({ wrap: { 'ws-everything': entry } })));
            const tools = await waitForTools(api, ['get-sum']);
            assert.deepEqual([...api.testing.wrap.text!.matchAll(/"([\w-]+)": \{\n\s+"type"/g)].map(match => match[1]), ['ws-everything']);
            assert.match(await invoke(tools.get('get-sum')!, { a: 2, b: 3 }), /5/);
        } finally {
            rmSync(file, { force: true });
        }
        await waitFor('the file entry to be dropped', async () => (!(await servedTools(api)).includes('get-sum') ? true : undefined), 90_000, 500);
        if (made) {
            rmSync(made, { recursive: true, force: true });
        }
    });
});
