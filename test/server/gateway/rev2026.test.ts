import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, McpError, ProgressNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { SERVER_JS, startHttpServer, textOf, type HttpServer } from '../../support/helpers.js';
import { pollUntilTerminal } from '../../support/messageTap.js';
import { Http2026Client } from '../../support/rev2026.js';
import { Feed, waitUntil } from '../../support/wait.js';
import { resolve } from 'node:path';
import { httpGateway, stdioGateway, v2Gateway, v2TaskSession, type Gateway, type HttpGateway } from './gatewayHelpers.js';
import { inMemory } from '../../support/serverState.js';

// A downstream that speaks only 2026-07-28: our own server with --no-session-protocol, a real
// process that refuses initialize (-32022). The gateway finds that out at start and speaks the
// stateless revision to it (server/discover, _meta on every request, InputRequiredResults, the
// tasks extension for a tool that runs only as a task). Driven by the SDK's 2025-11-25 client and
// by the official 2026-07-28 Tasks client (@modelcontextprotocol/client + ext-tasks).

type Json = Record<string, unknown>;
const V2 = '2026-07-28';
/** Demo tools (greet, slow_compute, confirm_delete, failing_job) and the conformance fixtures (plain calls that ask through InputRequiredResults). */
const wrap2026 = () => ['--wrap', '--', process.execPath, SERVER_JS, '--stdio', ...inMemory(), '--no-session-protocol', '--conformance-fixtures', '--no-task-tools', '--defer-after', '0', '--log-level', 'debug'];

describe('a server started with --no-session-protocol', { timeout: 60_000 }, () => {
    it('refuses initialize with UnsupportedProtocolVersionError naming 2026-07-28 only', async () => {
        const client = new Client({ name: 'old-client', version: '1' });
        const refused = await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER_JS, '--stdio', '--no-session-protocol', ...inMemory()], stderr: 'ignore' })).then(
            () => undefined,
            (err: unknown) => err,
        );
        await client.close();
        assert.ok(refused instanceof McpError, String(refused));
        assert.equal(refused.code, -32022);
        assert.deepEqual((refused.data as { supported?: unknown }).supported, [V2]);
    });
});

describe('the gateway in front of a server that speaks only 2026-07-28 (2025-11-25 client)', { timeout: 120_000 }, () => {
    let gateway: Gateway;
    const progress = new Feed<Json>();
    const asked: Json[] = [];
    /** Questions the host leaves unanswered (the cancel test). */
    const held = new Feed<Json>();

    before(async () => {
        gateway = await stdioGateway(wrap2026(), { elicitation: { form: {} } });
        gateway.client.setNotificationHandler(ProgressNotificationSchema, notification => progress.push(notification.params));
        gateway.client.setRequestHandler(ElicitRequestSchema, async request => {
            if (request.params.message.includes('hold.txt')) {
                held.push(request.params);
                return new Promise(() => undefined);
            }
            asked.push(request.params);
            const properties = Object.keys(((request.params as Json).requestedSchema as { properties?: Json } | undefined)?.properties ?? {});
            return properties.includes('confirm') ? { action: 'accept', content: { confirm: 'delete' } } : { action: 'accept', content: { name: 'Ada' } };
        });
    });

    after(() => gateway?.close());

    it('detects the revision and serves the downstream tools: a plain call answers', async () => {
        await gateway.log.waitFor(/refused initialize .*speaking protocol 2026-07-28/);
        await gateway.log.waitFor(/connected \(mcp-tasks .*protocol 2026-07-28/);
        const { tools } = await gateway.client.listTools();
        const names = tools.map(tool => tool.name);
        assert.ok(names.includes('greet') && names.includes('slow_compute') && names.includes('confirm_delete'), names.join(', '));
        assert.equal(tools.find(tool => tool.name === 'slow_compute')?.execution?.taskSupport, 'optional');
        assert.equal(textOf(await gateway.client.callTool({ name: 'greet', arguments: { name: 'Gateway' } })), 'Hello, Gateway!');
    });

    it('runs a call as our task: the downstream progress reaches the host under its token', async () => {
        const { task } = await gateway.client.request(
            { method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 1, label: 'stateless' }, task: {}, _meta: { progressToken: 'v2-progress' } } },
            CreateTaskResultSchema,
        );
        assert.equal(await pollUntilTerminal(gateway.client, task.taskId), 'completed');
        const result = await gateway.client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema);
        assert.match(textOf(result), /Computation "stateless" completed after 1 seconds/);
        assert.ok(
            progress.items.some(p => p.progressToken === 'v2-progress'),
            JSON.stringify(progress.items),
        );
    });

    it('cancels: our task is cancelled at once and the downstream call is cancelled there', async () => {
        const { task } = await gateway.client.request(
            { method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 60, label: 'to-cancel' }, task: {}, _meta: { progressToken: 'v2-cancel' } } },
            CreateTaskResultSchema,
        );
        // Running downstream before we cancel: its first progress has reached the host.
        await waitUntil(() => progress.items.some(p => p.progressToken === 'v2-cancel'), 'the downstream call to report progress', { on: progress.changes });
        assert.equal((await gateway.client.experimental.tasks.cancelTask(task.taskId)).status, 'cancelled');
        assert.equal((await gateway.client.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
        // The downstream's own log line (its stderr, in ours): its slow_compute stopped.
        await gateway.log.waitFor(/\[slow_compute\] cancelled "to-cancel"/);
    });

    it('answers an InputRequiredResult of a plain call by asking the host, then retries with the answer', async () => {
        const before = asked.length;
        const result = await gateway.client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
        assert.equal(textOf(result), 'Hello, Ada!');
        assert.equal(asked.length, before + 1);
        assert.match(String(asked.at(-1)?.message), /What is your name/);
    });

    it('mirrors a downstream task (a tool it runs only as a task): its input request is asked as ours and answered with tasks/update', async () => {
        const { task } = await gateway.client.request({ method: 'tools/call', params: { name: 'confirm_delete', arguments: { filename: 'mirror.txt' }, task: {} } }, CreateTaskResultSchema);
        assert.equal(await pollUntilTerminal(gateway.client, task.taskId), 'completed');
        const result = await gateway.client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema);
        assert.equal(textOf(result), "Confirmed: would delete 'mirror.txt' (demo: nothing deleted)");
        assert.match(String(asked.at(-1)?.message), /Delete 'mirror.txt'\?/);
    });

    it('cancels a mirrored downstream task with tasks/cancel, which the server acknowledges', async () => {
        const { task } = await gateway.client.request({ method: 'tools/call', params: { name: 'confirm_delete', arguments: { filename: 'hold.txt' }, task: {} } }, CreateTaskResultSchema);
        // The downstream task exists and waits: its question has reached the host (which does not answer this one).
        await waitUntil(() => held.items.length > 0, 'the mirrored task to ask its question', { on: held.changes });
        assert.equal((await gateway.client.experimental.tasks.cancelTask(task.taskId)).status, 'cancelled');
        await gateway.log.waitFor(/confirm_delete: cancelled; the wrapped server acknowledged tasks\/cancel for its task/);
    });

    it('follows the downstream tool list through its subscriptions/listen stream: a change reaches our client', async () => {
        const changes = new Feed<unknown>();
        gateway.client.setNotificationHandler(ToolListChangedNotificationSchema, notification => changes.push(notification));
        assert.equal(textOf(await gateway.client.callTool({ name: 'test_trigger_tool_change', arguments: {} })), 'Tool list change announced.');
        await waitUntil(() => changes.items.length > 0, 'our client to hear the downstream tool list change', { on: changes.changes });
    });

    it('passes on a failed downstream task as a failure, and a refused request as its error', async () => {
        const { task } = await gateway.client.request({ method: 'tools/call', params: { name: 'failing_job', arguments: {}, task: {} } }, CreateTaskResultSchema);
        assert.equal(await pollUntilTerminal(gateway.client, task.taskId), 'failed');
        // Arguments the downstream refuses: its -32602 (or its error result) reaches the host, and the gateway goes on.
        const refused = await gateway.client.callTool({ name: 'greet', arguments: { name: 42 } }).then(
            result => result,
            (err: unknown) => err,
        );
        assert.ok(refused instanceof McpError ? refused.code === -32602 : (refused as { isError?: boolean }).isError === true, JSON.stringify(refused));
        assert.equal(textOf(await gateway.client.callTool({ name: 'greet', arguments: { name: 'again' } })), 'Hello, again!');
    });
});

describe('the gateway in front of a server that speaks only 2026-07-28 (2026-07-28 clients)', { timeout: 120_000 }, () => {
    let gateway: HttpGateway;

    before(async () => {
        gateway = await httpGateway(wrap2026());
    });

    after(() => gateway?.stop());

    it('serves the official Tasks client over HTTP: a task with its result, and a downstream task whose question is answered through tasks/update', async () => {
        const questions: unknown[] = [];
        const v2 = await v2TaskSession(gateway.url, request => (questions.push(request), { action: 'accept', content: { confirm: 'delete' } }));
        try {
            const call = await v2.session.callTool('slow_compute', { seconds: 0.2, label: 'v2' }, { task: { preference: 'require' } });
            assert.equal(call.kind, 'task');
            const { outcome } = await call.settle();
            assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
            assert.match(textOf(v2.resultOf(outcome)), /Computation "v2" completed/);
            const confirm = await (await v2.session.callTool('confirm_delete', { filename: 'v2.txt' }, { task: { preference: 'require' } })).settle();
            assert.equal(confirm.outcome.status, 'completed', JSON.stringify(confirm.outcome));
            assert.equal(textOf(v2.resultOf(confirm.outcome)), "Confirmed: would delete 'v2.txt' (demo: nothing deleted)");
            assert.equal(questions.length, 1);
        } finally {
            await v2.close();
        }
    });

    it('passes a plain call InputRequiredResult on to a 2026-07-28 client: it answers our round, and the retry answers the downstream', async () => {
        // No tasks extension: a plain call, whose question ends our round as it ended the downstream's.
        const client = new Http2026Client(gateway.url, undefined, { elicitation: { form: {} } });
        const first = await client.call('tools/call', { name: 'test_input_required_result_elicitation', arguments: {} });
        assert.equal(first.resultType, 'input_required', JSON.stringify(first));
        const requests = Object.entries(first.inputRequests as Record<string, { method: string; params: { message: string } }>);
        assert.equal(requests.length, 1);
        const [key, request] = requests[0]!;
        assert.equal(request.method, 'elicitation/create');
        assert.match(request.params.message, /What is your name/);
        const second = await client.call('tools/call', { name: 'test_input_required_result_elicitation', arguments: {}, inputResponses: { [key]: { action: 'accept', content: { name: 'Grace' } } }, requestState: first.requestState });
        assert.equal(second.resultType, 'complete', JSON.stringify(second));
        assert.equal(textOf(second as never), 'Hello, Grace!');
    });

    it('serves a plain call of the 2026-07-28 client on stdio', async () => {
        const { client, close } = await v2Gateway('stdio', wrap2026());
        try {
            const result = await client.callTool({ name: 'greet', arguments: { name: 'stateless' } });
            assert.equal(textOf(result as never), 'Hello, stateless!');
        } finally {
            await close();
        }
    });
});

describe('the gateway in front of an HTTP server that speaks only 2026-07-28', { timeout: 120_000 }, () => {
    let downstream: HttpServer;
    let gateway: Gateway;

    before(async () => {
        downstream = await startHttpServer(['--no-session-protocol', '--no-task-tools', '--defer-after', '0']);
        gateway = await stdioGateway(['--wrap-url', downstream.url], { elicitation: { form: {} } });
        gateway.client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { confirm: 'delete' } }));
    });

    after(async () => {
        await gateway?.close();
        await downstream?.stop();
    });

    it('speaks 2026-07-28 over HTTP (its headers on every POST): a plain call, a task, and a mirrored downstream task with its question', async () => {
        await gateway.log.waitFor(/connected \(mcp-tasks .*protocol 2026-07-28/);
        assert.equal(textOf(await gateway.client.callTool({ name: 'greet', arguments: { name: 'http' } })), 'Hello, http!');
        const { task } = await gateway.client.request({ method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 0.2, label: 'over-http' }, task: {} } }, CreateTaskResultSchema);
        assert.equal(await pollUntilTerminal(gateway.client, task.taskId), 'completed');
        assert.match(textOf(await gateway.client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema)), /"over-http" completed/);
        const mirrored = await gateway.client.request({ method: 'tools/call', params: { name: 'confirm_delete', arguments: { filename: 'http.txt' }, task: {} } }, CreateTaskResultSchema);
        assert.equal(await pollUntilTerminal(gateway.client, mirrored.task.taskId), 'completed');
        assert.equal(textOf(await gateway.client.request({ method: 'tasks/result', params: { taskId: mirrored.task.taskId } }, CallToolResultSchema)), "Confirmed: would delete 'http.txt' (demo: nothing deleted)");
    });
});

describe('the gateway in front of a 2026-07-28 server that misbehaves', { timeout: 120_000 }, () => {
    let gateway: Gateway;

    before(async () => {
        gateway = await stdioGateway(['--wrap', '--', process.execPath, resolve(__dirname, '../fixtures/gateway/misbehaving2026.mjs')]);
        await gateway.log.waitFor(/connected \(stateless-misbehaving 1\.0\.0, protocol 2026-07-28, 6 tools\)/);
    });

    after(() => gateway?.close());

    it('skips a frame that is not JSON-RPC (logged) and goes on', async () => {
        assert.equal(textOf(await gateway.client.callTool({ name: 'garbage', arguments: {} })), 'answered after garbage');
        assert.equal(textOf(await gateway.client.callTool({ name: 'echo', arguments: { message: 'still here' } })), 'Echo: still here');
    });

    it('refuses a request the server sends (2026-07-28 asks through results) with method not found, and the call goes on', async () => {
        assert.equal(textOf(await gateway.client.callTool({ name: 'asks', arguments: {} })), 'asked; answer code -32601');
    });

    it('answers a result that is not an object as a failure of that call, and the server stays usable', async () => {
        const failed = await gateway.client.callTool({ name: 'not_an_object', arguments: {} }).then(
            result => result,
            (err: unknown) => err,
        );
        const said = failed instanceof McpError ? failed.message : textOf(failed as never);
        assert.match(said, /not_an_object on the wrapped MCP server "misbehaving2026" failed: its answer carried no result object/);
        assert.equal(textOf(await gateway.client.callTool({ name: 'echo', arguments: { message: 'after' } })), 'Echo: after');
    });

    it('fails the call running when it exits, and restarts it speaking 2026-07-28 at once (no second initialize)', async () => {
        const result = await gateway.client.callTool({ name: 'crash', arguments: {} });
        assert.equal(result.isError, true);
        assert.match(textOf(result), /The wrapped MCP server "misbehaving2026" stopped while crash was running/);
        await waitUntil(() => gateway.log.lines.filter(line => /connected \(stateless-misbehaving 1\.0\.0, protocol 2026-07-28/.test(line)).length >= 2, 'the restarted server to connect', { on: gateway.log.changes });
        assert.equal(gateway.log.lines.filter(line => /refused initialize/.test(line)).length, 1);
        assert.equal(textOf(await gateway.client.callTool({ name: 'echo', arguments: { message: 'back' } })), 'Echo: back');
    });
});
