import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exchange, INITIALIZE, type Msg } from '../../support/rawHttp.js';
import { httpServerPerSuite } from '../../support/helpers.js';
import { ALL_CAPABILITIES, errorOf, meta, Http2026Client, TASKS_EXTENSION, V2 } from '../../support/rev2026.js';
import { waitUntil } from '../../support/wait.js';

// Protocol 2026-07-28 over HTTP (SEP-2575 stateless core, SEP-2663 tasks extension, SEP-2322
// multi round-trip, SEP-2243 headers), raw, against the real server; and that a 2025-11-25
// client beside it sees nothing new.

const TOKEN_A = 'stateless-token-a';
const TOKEN_B = 'stateless-token-b';
const OWNER = 'stateless-owner-token';


async function createTask(client: Http2026Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
    const result = await client.call('tools/call', { name, arguments: args });
    assert.equal(result.resultType, 'task', JSON.stringify(result));
    return result.taskId as string;
}

function getTask(client: Http2026Client, taskId: string): Promise<Record<string, unknown>> {
    return client.call('tasks/get', { taskId });
}

function untilStatus(client: Http2026Client, taskId: string, ...statuses: string[]): Promise<Record<string, unknown>> {
    return waitUntil(
        async () => {
            const task = await getTask(client, taskId);
            return statuses.includes(task.status as string) ? task : undefined;
        },
        `task ${taskId} to be ${statuses.join(' or ')}`,
        { everyMs: 50 },
    );
}

describe('protocol 2026-07-28 over HTTP', () => {
    const server = httpServerPerSuite(['--token', TOKEN_A, '--token', TOKEN_B, '--owner-token', OWNER, '--bind', 'principal']);
    const a = new Http2026Client(server, TOKEN_A);
    const b = new Http2026Client(server, TOKEN_B);

    it('answers server/discover with its versions, the tasks extension and no session', async () => {
        const reply = await a.post('server/discover');
        assert.equal(reply.status, 200);
        assert.equal(reply.header('mcp-session-id'), undefined);
        const result = reply.messages[0]!.result!;
        assert.equal(result.resultType, 'complete');
        assert.deepEqual(result.supportedVersions, [V2, '2025-11-25']);
        const capabilities = result.capabilities as Record<string, Record<string, unknown>>;
        assert.deepEqual(capabilities.extensions, { [TASKS_EXTENSION]: {} });
        assert.equal(capabilities.tasks, undefined, 'the 2025-11-25 tasks capability is not advertised beside the extension');
        assert.equal((result._meta as Record<string, { name: string }>)['io.modelcontextprotocol/serverInfo']?.name, 'mcp-tasks');
    });

    it('leaves 2025-11-25 as it was: initialize opens a session, a sessionless request without a new version is refused', async () => {
        const init = await exchange(server.url, {
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN_A}` },
            body: JSON.stringify(INITIALIZE),
        });
        assert.equal(init.status, 200);
        assert.ok(init.header('mcp-session-id'));
        assert.equal(init.messages[0]!.result!.protocolVersion, '2025-11-25');
        assert.ok((init.messages[0]!.result!.capabilities as Record<string, unknown>).tasks);
        const sessionHeaders = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${TOKEN_A}`, 'mcp-session-id': init.header('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
        const list = await exchange(server.url, { headers: sessionHeaders, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
        const names = (list.messages[0]!.result!.tools as { name: string }[]).map(tool => tool.name);
        assert.ok(names.includes('greet') && !names.some(name => name.startsWith('test_') || name === 'protocol_error_job'), 'no conformance fixture without --conformance-fixtures');
        assert.equal(list.messages[0]!.result!.resultType, undefined, 'no 2026-07-28 fields in a session');
        const noSession = await exchange(server.url, {
            headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${TOKEN_A}`, 'mcp-protocol-version': '2025-11-25' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        assert.equal(noSession.status, 400);
        assert.match(noSession.body, /Mcp-Session-Id header is required/);
        // initialize opens a session whatever version header it carries (an empty one included).
        for (const version of ['', '2026-07-28', 'bogus']) {
            const again = await exchange(server.url, {
                headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN_A}`, 'mcp-protocol-version': version },
                body: JSON.stringify(INITIALIZE),
            });
            assert.equal(again.status, 200, `initialize with version header ${JSON.stringify(version)}`);
            assert.ok(again.header('mcp-session-id'));
        }
    });

    it('refuses a request whose _meta lacks the protocol version or the capabilities (-32602, HTTP 400)', async () => {
        for (const params of [{}, { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } }, { _meta: { 'io.modelcontextprotocol/protocolVersion': V2 } }]) {
            const reply = await a.post('server/discover', params, { raw: true });
            assert.equal(reply.status, 400, reply.body);
            assert.equal(errorOf(reply.messages).code, -32602);
            assert.ok(reply.messages[0]!.id !== null, 'the error names the request');
        }
    });

    it('answers an unknown version with UnsupportedProtocolVersionError (-32022) listing what it speaks', async () => {
        const reply = await a.post('server/discover', { _meta: meta(ALL_CAPABILITIES, '2099-01-01') }, { raw: true, headers: { 'mcp-protocol-version': '2099-01-01' } });
        assert.equal(reply.status, 400);
        const error = errorOf(reply.messages);
        assert.equal(error.code, -32022);
        assert.deepEqual(error.data, { supported: [V2, '2025-11-25'], requested: '2099-01-01' });
    });

    it('refuses a sessionless notification in a version it does not speak (HTTP 400, -32022), and accepts one in 2026-07-28 (202)', async () => {
        const post = (version: string, params?: Record<string, unknown>) =>
            exchange(server.url, {
                headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN_A}`, 'mcp-protocol-version': version },
                body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized', ...(params ? { params } : {}) }),
            });
        // An empty header is what the fuzz sent; '2099-01-01' a version from the future; the _meta's version wins over the header's.
        for (const [version, params, requested] of [['', undefined, ''], ['2099-01-01', undefined, '2099-01-01'], [V2, { _meta: meta(ALL_CAPABILITIES, 'bogus') }, 'bogus']] as const) {
            const reply = await post(version, params);
            assert.equal(reply.status, 400, `${JSON.stringify(version)}: ${reply.body}`);
            assert.match(String(reply.header('content-type')), /^application\/json/);
            const error = errorOf(reply.messages);
            assert.equal(error.code, -32022);
            assert.deepEqual(error.data, { supported: [V2, '2025-11-25'], requested });
            assert.equal(reply.messages[0]!.id, null, 'a notification has no id to name');
        }
        const accepted = await post(V2, { _meta: meta(ALL_CAPABILITIES) });
        assert.equal(accepted.status, 202);
        assert.equal(accepted.body, '');
    });

    it('checks the headers against the body (-32020, HTTP 400)', async () => {
        const cases: [string, Record<string, unknown>, Record<string, string | undefined>][] = [
            ['tools/list', {}, { 'mcp-protocol-version': '2025-11-25' }],
            ['tools/list', {}, { 'mcp-method': undefined }],
            ['tools/list', {}, { 'mcp-method': 'tools/call' }],
            ['tools/call', { name: 'greet', arguments: { name: 'x' } }, { 'mcp-name': 'slow_compute' }],
            ['tools/call', { name: 'greet', arguments: { name: 'x' } }, { 'mcp-name': undefined }],
            ['tasks/get', { taskId: 'abc' }, { 'mcp-name': 'xyz' }],
        ];
        for (const [method, params, headers] of cases) {
            const reply = await a.post(method, params, { headers });
            assert.equal(reply.status, 400, `${method} ${JSON.stringify(headers)}: ${reply.body}`);
            assert.equal(errorOf(reply.messages).code, -32020, JSON.stringify(headers));
        }
        // Base64-encoded Mcp-Name (SEP-2243) is decoded before comparing.
        const encoded = await a.post('tools/call', { name: 'greet', arguments: { name: 'x' } }, { headers: { 'mcp-name': `=?base64?${Buffer.from('greet').toString('base64')}?=` } });
        assert.equal(encoded.status, 200, encoded.body);
    });

    it('answers removed and unknown methods with 404 and -32601', async () => {
        for (const method of ['initialize', 'ping', 'logging/setLevel', 'tasks/result', 'tasks/list', 'resources/subscribe', 'no/such']) {
            const reply = await a.post(method, method.startsWith('tasks/') ? { taskId: 'x' } : {});
            assert.equal(reply.status, 404, `${method}: ${reply.body}`);
            assert.equal(errorOf(reply.messages).code, -32601, method);
        }
    });

    it('lists tools with caching hints, without taskSupport and without the conformance fixtures', async () => {
        const result = await a.call('tools/list');
        assert.equal(result.resultType, 'complete');
        assert.equal(result.cacheScope, 'public');
        assert.ok(Number.isInteger(result.ttlMs) && (result.ttlMs as number) >= 0);
        const tools = result.tools as Record<string, unknown>[];
        assert.ok(tools.some(tool => tool.name === 'confirm_delete'));
        assert.ok(tools.every(tool => tool.execution === undefined));
        assert.ok(!tools.some(tool => (tool.name as string).startsWith('test_') || tool.name === 'protocol_error_job' || tool.name === 'multi_input'));
    });

    it('runs a forbidden tool inline, and an optional one inline for a client without the extension', async () => {
        const greet = await a.call('tools/call', { name: 'greet', arguments: { name: 'Ada' } });
        assert.deepEqual(greet, { resultType: 'complete', content: [{ type: 'text', text: 'Hello, Ada!' }] });
        const plain = await a.call('tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'inline' } }, { capabilities: {} });
        assert.equal(plain.resultType, 'complete');
        assert.match((plain.content as { text: string }[])[0]!.text, /Computation "inline" completed/);
    });

    it('answers arguments that do not fit with an isError result naming the field and the shape, with or without the extension', async () => {
        for (const capabilities of [undefined, {}]) {
            const reply = await a.call('tools/call', { name: 'slow_compute', arguments: { seconds: 'ten' } }, capabilities ? { capabilities } : {});
            assert.equal(reply.resultType, 'complete', 'inline, not a task');
            assert.equal(reply.isError, true);
            assert.match((reply.content as { text: string }[])[0]!.text, /^Invalid arguments for tool slow_compute: seconds: .*slow_compute takes \{seconds: number, label: string\}/);
        }
        const taskTool = await a.call('tools/call', { name: 'get_task', arguments: {} });
        assert.equal(taskTool.isError, true);
        assert.match((taskTool.content as { text: string }[])[0]!.text, /^Invalid arguments for tool get_task: task_id: /);
    });

    it('refuses a required task tool to a client without the extension (-32021 naming it)', async () => {
        const reply = await a.post('tools/call', { name: 'failing_job', arguments: {} }, { capabilities: { elicitation: {} } });
        assert.equal(reply.status, 400);
        const error = errorOf(reply.messages);
        assert.equal(error.code, -32021);
        assert.deepEqual(error.data, { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
        // What a model reads (Claude Code -p declares no extension): the tool to call instead, first.
        assert.match(error.message, /^Tool failing_job runs only as a task\. Call start_failing_job with the same arguments instead: .*\(A client that speaks MCP Tasks would declare the io\.modelcontextprotocol\/tasks extension/);
    });

    it('creates a flat task and inlines its result in tasks/get', async () => {
        const created = await a.call('tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'flat' } });
        assert.equal(created.resultType, 'task');
        assert.equal(typeof created.taskId, 'string');
        assert.ok(['working', 'completed'].includes(created.status as string));
        assert.equal(created.ttlMs, 3_600_000);
        assert.equal(created.pollIntervalMs, 1000);
        assert.equal(created.ttl, undefined);
        assert.equal(created.task, undefined);
        const done = await untilStatus(a, created.taskId as string, 'completed');
        assert.equal(done.resultType, 'complete');
        assert.match(((done.result as { content: { text: string }[] }).content[0]!).text, /Computation "flat" completed/);
    });

    it('reports a tool error as completed with isError, and only a JSON-RPC error as failed', async () => {
        const taskId = await createTask(a, 'failing_job');
        const done = await untilStatus(a, taskId, 'completed', 'failed');
        assert.equal(done.status, 'completed');
        assert.equal((done.result as { isError: boolean }).isError, true);
        assert.equal(done.error, undefined);
    });

    it('asks for input through inputRequests and resumes on tasks/update (confirm_delete)', async () => {
        const taskId = await createTask(a, 'confirm_delete', { filename: 'notes.txt' });
        const waiting = await untilStatus(a, taskId, 'input_required');
        const requests = waiting.inputRequests as Record<string, { method: string; params: { message: string } }>;
        const [key, request] = Object.entries(requests)[0]!;
        assert.equal(request.method, 'elicitation/create');
        assert.match(request.params.message, /notes\.txt/);
        // Another identity cannot answer it.
        const foreign = await b.post('tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: 'delete' } } } });
        assert.equal(errorOf(foreign.messages).code, -32602);
        // A key never issued is ignored; the ack is empty.
        assert.deepEqual(await a.call('tasks/update', { taskId, inputResponses: { 'no-such-key': { action: 'accept' } } }), { resultType: 'complete' });
        assert.equal((await getTask(a, taskId)).status, 'input_required');
        assert.deepEqual(await a.call('tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: 'delete' } } } }), { resultType: 'complete' });
        const done = await untilStatus(a, taskId, 'completed');
        assert.equal((done.result as { content: { text: string }[] }).content[0]!.text, "Confirmed: would delete 'notes.txt' (demo: nothing deleted)");
        // The outcome in words stays on the completed task, as in 2025-11-25.
        assert.equal(done.statusMessage, 'Confirmed');
    });

    it('says why a background task of a client without the extension cannot ask, and what to call instead (start_confirm_delete)', async () => {
        // Claude Code -p: declares elicitation but not the extension, so it starts tasks with the task tools.
        const started = await a.call('tools/call', { name: 'start_confirm_delete', arguments: { filename: 'notes.txt' } }, { capabilities: { elicitation: {} } });
        const taskId = (started.structuredContent as { task_id: string }).task_id;
        const ended = await a.call('tools/call', { name: 'get_task', arguments: { task_id: taskId, wait_seconds: 20 } }, { capabilities: { elicitation: {} } });
        const summary = ended.structuredContent as { status: string; status_message?: string };
        assert.equal(summary.status, 'failed');
        assert.match(summary.status_message ?? '', /^Nobody can answer this task's elicitation request: the client that started this task can be asked only within a call's own answer, and this task runs in the background \(call confirm_delete directly to be asked within the call\)/);
        assert.doesNotMatch(summary.status_message ?? '', /did not declare/);
    });

    it('asks the client model through inputRequests too (write_haiku)', async () => {
        const taskId = await createTask(a, 'write_haiku', { topic: 'rain' });
        const waiting = await untilStatus(a, taskId, 'input_required');
        const [key, request] = Object.entries(waiting.inputRequests as Record<string, { method: string }>)[0]!;
        assert.equal(request.method, 'sampling/createMessage');
        await a.call('tasks/update', { taskId, inputResponses: { [key]: { role: 'assistant', model: 'test', content: { type: 'text', text: 'soft rain on the roof' } } } });
        const done = await untilStatus(a, taskId, 'completed');
        assert.match((done.result as { content: { text: string }[] }).content[0]!.text, /soft rain on the roof/);
    });

    it('acknowledges tasks/cancel with an empty result, again and again, and the task ends cancelled', async () => {
        const taskId = await createTask(a, 'slow_compute', { seconds: 60, label: 'to cancel' });
        assert.deepEqual(await a.call('tasks/cancel', { taskId }), { resultType: 'complete' });
        assert.deepEqual(await a.call('tasks/cancel', { taskId }), { resultType: 'complete' });
        const done = await untilStatus(a, taskId, 'cancelled');
        assert.equal(done.result, undefined);
    });

    it('cancels a task and its sub-tasks (deploy), and the owner sees them all in its 2025-11-25 view', async () => {
        const taskId = await createTask(a, 'deploy', { app: 'stateless-app' });
        const owner = new Http2026Client(server.url, OWNER);
        // The owner's view (the sidebar) lists the task with its task info, and its sub-tasks.
        const ownerTask = await getTask(owner, taskId);
        assert.equal(((ownerTask._meta as Record<string, { toolName: string }>)['dev.mcp-tasks/task-info'])?.toolName, 'deploy');
        await waitUntil(async () => (await ownerList(server.url)).some(task => (task._meta as Record<string, unknown> | undefined)?.['dev.mcp-tasks/parent-task-id'] === taskId), 'a deploy step listed with its parent', { everyMs: 50 });
        await a.call('tasks/cancel', { taskId });
        await untilStatus(a, taskId, 'cancelled');
        const children = (await ownerList(server.url)).filter(task => (task._meta as Record<string, unknown> | undefined)?.['dev.mcp-tasks/parent-task-id'] === taskId);
        assert.ok(children.length > 0);
        await waitUntil(async () => (await ownerList(server.url)).filter(t => children.some(c => c.taskId === t.taskId)).every(t => t.status === 'cancelled'), 'every step cancelled', { everyMs: 50 });
    });

    it('keeps tasks to the identity that created them: another token gets -32602 for get, update and cancel', async () => {
        const taskId = await createTask(a, 'slow_compute', { seconds: 60, label: 'private' });
        for (const [method, params] of [
            ['tasks/get', { taskId }],
            ['tasks/cancel', { taskId }],
            ['tasks/update', { taskId, inputResponses: {} }],
        ] as const) {
            const reply = await b.post(method, params);
            assert.equal(errorOf(reply.messages).code, -32602, method);
        }
        assert.equal((await getTask(a, taskId)).status, 'working', 'the other identity changed nothing');
        await a.call('tasks/cancel', { taskId });
    });

    it('answers an unknown task id with -32602', async () => {
        for (const method of ['tasks/get', 'tasks/cancel']) {
            const reply = await a.post(method, { taskId: 'no-such-task' });
            assert.equal(errorOf(reply.messages).code, -32602, method);
        }
    });

    it('streams notifications/tasks after subscriptions/listen, tagged with the subscription', async () => {
        const taskId = await createTask(a, 'slow_compute', { seconds: 1, label: 'listened' });
        const messages: Msg[] = [];
        const stream = a.open('subscriptions/listen', { notifications: { taskIds: [taskId, 'not-mine'] } }, message => messages.push(message));
        try {
            assert.equal(await stream.status, 200);
            await waitUntil(() => messages.some(m => m.method === 'notifications/tasks' && m.params?.status === 'completed'), 'the completed notification', { everyMs: 20 });
            const ack = messages[0]!;
            assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
            assert.deepEqual(ack.params!.notifications, { taskIds: [taskId] });
            const subscriptionId = (ack.params!._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId'];
            const last = messages.find(m => m.method === 'notifications/tasks' && m.params?.status === 'completed')!;
            assert.equal(last.params!.taskId, taskId);
            assert.match(((last.params!.result as { content: { text: string }[] }).content[0]!).text, /listened/);
            assert.equal((last.params!._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId'], subscriptionId);
        } finally {
            stream.close();
        }
    });

    it('refuses task notifications to a client without the extension (-32021)', async () => {
        const reply = await a.post('subscriptions/listen', { notifications: { taskIds: ['x'] } }, { capabilities: {} });
        assert.equal(errorOf(reply.messages).code, -32021);
    });
});

/** Every task, as the owner's 2025-11-25 session lists them (the sidebar's view). */
async function ownerList(url: string): Promise<Record<string, unknown>[]> {
    const headers = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${OWNER}` };
    const init = await exchange(url, { headers, body: JSON.stringify(INITIALIZE) });
    const session = init.header('mcp-session-id')!;
    const list = await exchange(url, { headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/list' }) });
    await exchange(url, { method: 'DELETE', headers: { authorization: `Bearer ${OWNER}`, 'mcp-session-id': session } });
    return list.messages[0]!.result!.tasks as Record<string, unknown>[];
}
