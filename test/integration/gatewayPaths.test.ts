import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { readRows, rowOf } from './drawnRows';
import { activateWithHooks, invoke, readyWithTasksView, startInVsCode, uiArtifact, useTransport, waitFor } from './util';
import { cancelFromSidebar, everything, EVERYTHING, LONG, screenshotSince, setWrap, startLongCall, waitForTools } from './wrapped';

const ASK = 'trigger-elicitation-request';
const SAMPLE = 'trigger-sampling-request';
/** The row's name: the title server-everything declares for ASK (rows show a tool's declared title). */
const ASK_TITLE = 'Trigger Elicitation Request Tool';
/** This repository's server, built (dist/server.js). */
const OUR_SERVER = resolve(__dirname, '../../../dist/server.js');

/** A loopback port nothing listens on now (the OS picks it; the downstream binds it a moment later). */
function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const probe = createServer().once('error', reject);
        probe.listen(0, '127.0.0.1', () => {
            const { port } = probe.address() as { port: number };
            probe.close(() => resolve(port));
        });
    });
}

/**
 * The gateway's other paths in the real VS Code: a wrapped server's question answered through the
 * row's Respond, a Streamable HTTP downstream, and the extension's stdio transport with a wrap.
 * Needs the Playwright UI driver (it answers VS Code's form and reads the drawn rows).
 */
describe('the gateway in VS Code: questions, an HTTP downstream, the stdio transport', () => {
    let api: McpTasksTestApi;
    let httpServer: ChildProcess | undefined;
    let tokenServer: ChildProcess | undefined;

    before(async function () {
        this.timeout(240_000);
        api = await readyWithTasksView();
    });

    after(async function () {
        this.timeout(240_000);
        httpServer?.kill();
        tokenServer?.kill();
        await vscode.workspace.getConfiguration('mcpTasks').update('wrap', undefined, vscode.ConfigurationTarget.Global);
        api = await activateWithHooks();
        if (api.transport !== 'http') {
            await useTransport(api, 'http');
        }
        await startInVsCode(120_000, api);
    });

    it("a wrapped server's question: the row needs input, Respond answers VS Code's form, and the wrapped tool's result carries the answer", async function () {
        this.timeout(300_000);
        const tools = await setWrap(api, { everything: everything() }, [ASK]);
        const { model } = api.testing;
        const before = new Set(model.all().map(view => view.taskId));
        const call = invoke(tools.get(ASK)!, {});
        call.catch(() => undefined);
        const view = await waitFor('the wrapped call to need input', () => model.all().find(v => v.toolName === ASK && !before.has(v.taskId) && v.status === 'input_required'), 60_000, 50);
        assert.doesNotMatch(view.clientName ?? '', /MCP Tasks for VS Code/, "VS Code's own client started it: VS Code asks the question");
        await vscode.commands.executeCommand('notifications.hideList');
        const since = Date.now();
        const waiting = rowOf(await readRows('gateway-input', drawn => drawn.rows.some(row => row.label === `Needs input: ${ASK_TITLE}`)), `Needs input: ${ASK_TITLE}`);
        assert.match(waiting.visibleLabel, /^Needs input: /);
        await waitFor('the screenshot of the waiting row', () => screenshotSince('rows-gateway-input', since), 30_000, 100);

        const answer = 'Ada Lovelace';
        const asked = Date.now();
        const request = vscode.window.setStatusBarMessage(`ui-copilot-form ${ASK_TITLE} :: ${answer}`);
        let report: { centerAfterClick: boolean; message: string; source: string; steps: { title: string; accepted?: string }[] };
        let result: string;
        try {
            result = await call;
            report = JSON.parse(readFileSync((await uiArtifact(`copilot-form-${ASK_TITLE}.json`, asked, true))!, 'utf8')) as typeof report;
        } finally {
            request.dispose();
        }
        assert.equal(report.centerAfterClick, true, "the row's Respond opened the Notifications Center");
        assert.equal(report.message, 'Please provide inputs for the following fields:', "the wrapped server's own question");
        assert.match(report.source, /MCP Server \(MCP Tasks/);
        // VS Code asks the form one field a step: the name first (answered), then the rest as offered.
        assert.deepEqual(report.steps.slice(0, 2), [{ title: 'String (1/13)', accepted: `➤ ${answer}` }, { title: 'Boolean (2/13)', accepted: 'true' }], JSON.stringify(report.steps));
        assert.equal(report.steps.length, 13);
        assert.ok(screenshotSince('copilot-form-question', asked), 'the question was photographed');
        // The downstream got the answer: its result echoes the fields.
        assert.match(result, /User provided the requested information/);
        assert.match(result, new RegExp(`- Name: ${answer}`));
        assert.match(result, /- Favorite Integer: 42/);
        await waitFor('the task to complete', () => (view.status === 'completed' ? true : undefined), 30_000, 50);
        await vscode.commands.executeCommand('notifications.hideList');
    });

    it("a wrapped server's sampling request is answered by the editor's language model", async function () {
        this.timeout(300_000);
        // VS Code asks before an MCP server may use a model (a dialog during a tool call, which the
        // smoke-test host refuses); this setting allows it up front. VS Code reads it for an
        // extension's server from the remote user's settings up, so in code-server from the workspace's.
        const dotVscode = join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.vscode');
        const hadDotVscode = existsSync(dotVscode);
        const sampling = vscode.workspace.getConfiguration('chat.mcp');
        await sampling.update('serverSampling', { 'MCP Tasks: MCP Tasks': { allowedDuringChat: true } }, vscode.ConfigurationTarget.Workspace);
        try {
            // VS Code lists an extension's models once something has asked for them.
            assert.ok((await vscode.lm.selectChatModels({ vendor: 'mcp-tasks-test' })).length > 0, 'the fixture model');
            const tools = await setWrap(api, { 'everything-sampling': everything() }, [SAMPLE]);
            const result = await invoke(tools.get(SAMPLE)!, { prompt: 'a haiku about gateways', maxTokens: 50 }).catch((err: Error) => `failed: ${err.message}`);
            // The fixture model's fixed reply names the prompt's topic: the downstream got the editor's answer.
            assert.match(result, /LLM sampling result/);
            assert.match(result, /Quiet gateways waits/);
        } finally {
            await sampling.update('serverSampling', undefined, vscode.ConfigurationTarget.Workspace);
            if (!hadDotVscode) {
                rmSync(dotVscode, { recursive: true, force: true });
            }
        }
    });

    it('an HTTP downstream (url and headers): its long tool shows progress in the sidebar, and Cancel cancels the call on it', async function () {
        this.timeout(300_000);
        const port = await freePort();
        const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
        httpServer = child;
        let heard = '';
        child.stderr!.on('data', (chunk: Buffer) => (heard += chunk.toString()));
        child.stdout!.resume();
        await waitFor('server-everything to listen over HTTP', () => (heard.includes(`listening on port ${port}`) ? true : undefined), 30_000, 100);
        const tools = await setWrap(api, { 'everything-http': { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Wrapped-By': 'integration' } } }, [LONG]);
        assert.match(api.testing.wrap.text ?? '', /"url": "http:\/\/127\.0\.0\.1:\d+\/mcp"/);
        const { view, settled } = await startLongCall(api, tools.get(LONG)!);
        await cancelFromSidebar(api, view, settled, 'everything-http');
    });

    it('an HTTP downstream that needs a bearer token gets it from the entry\'s headers', async function () {
        this.timeout(300_000);
        // Our own server over HTTP refuses a request without its token: its tools listed and a call answered mean every request carried the header.
        const token = 'wrapped-http-token';
        const child = spawn(process.execPath, [OUR_SERVER, '--http', '--port', '0', '--token', token, '--exit-with-stdin'], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, stdio: ['pipe', 'ignore', 'pipe'] });
        tokenServer = child;
        let heard = '';
        child.stderr!.on('data', (chunk: Buffer) => (heard += chunk.toString()));
        const url = await waitFor('our server to listen over HTTP', () => /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(heard)?.[1], 30_000, 100);
        const tools = await setWrap(api, { tokened: { type: 'http', url, headers: { Authorization: `Bearer ${token}` } } }, ['greet']);
        assert.equal(await invoke(tools.get('greet')!, { name: 'headers' }), 'Hello, headers!');
    });

    it("the stdio transport with a wrap: VS Code gets the wrapped tool over stdio, and its call shows in the sidebar", async function () {
        this.timeout(300_000);
        // Wrapped first (over HTTP), then the switch: VS Code starts the stdio server with the wrap it finds.
        await setWrap(api, { everything: everything() }, [LONG]);
        await useTransport(api, 'stdio');
        // VS Code owns a stdio server's process: it starts it (as Copilot's first call would).
        await waitFor('the stdio server', async () => {
            await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true, autoTrustChanges: true });
            return api.serverState().pid;
        }, 90_000, 1000);
        const tools = await waitForTools(api, [LONG]);
        assert.equal(api.transport, 'stdio');
        const { model } = api.testing;
        const before = new Set(model.all().map(view => view.taskId));
        const result = await invoke(tools.get(LONG)!, { duration: 2, steps: 2 });
        assert.match(result, /Long running operation completed\. Duration: 2 seconds, Steps: 2\./);
        const view = await waitFor('the call in the sidebar', () => model.all().find(v => v.toolName === LONG && !before.has(v.taskId) && v.status === 'completed'), 30_000, 50);
        assert.doesNotMatch(view.clientName ?? '', /MCP Tasks for VS Code/, "VS Code's own client made the call, over stdio");
    });
});
