import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { StdioLines } from '../../support/lightRpc.js';
import type { Msg } from '../../support/rawHttp.js';
import { meta } from '../../support/rev2026.js';
import { waitUntil } from '../../support/wait.js';

// Protocol 2026-07-28 on a stdio pipe: no initialize, `_meta` on each request, tasks bound to the
// pipe; and a pipe that sent initialize stays a 2025-11-25 session.

let server: StdioLines | undefined;

afterEach(() => server?.kill());

let id = 0;
async function call(method: string, params: Record<string, unknown> = {}, capabilities?: Record<string, unknown>): Promise<Msg> {
    return server!.call(++id, method, { ...params, _meta: { ...meta(capabilities), ...(params._meta as object | undefined) } });
}

async function result(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const response = await call(method, params);
    assert.ok(response.result, JSON.stringify(response));
    return response.result;
}

/** The task as tasks/get reports it once it has `status`. */
function statusReached(taskId: string, status: string): Promise<Record<string, unknown>> {
    return waitUntil(
        async () => {
            const task = await result('tasks/get', { taskId });
            return task.status === status ? task : undefined;
        },
        status,
        { everyMs: 20 },
    );
}

describe('protocol 2026-07-28 over stdio', () => {
    it('serves discover, a task with input, cancel and removed methods without initialize, sending nothing unasked', async () => {
        server = StdioLines.start();
        const notifications: Msg[] = [];
        server.onNotification = message => notifications.push(message);
        const discover = await result('server/discover');
        assert.deepEqual(Object.keys((discover.capabilities as { extensions: object }).extensions), ['io.modelcontextprotocol/tasks']);
        const created = await result('tools/call', { name: 'confirm_delete', arguments: { filename: 'a.txt' } });
        assert.equal(created.resultType, 'task');
        const taskId = created.taskId as string;
        const waiting = await statusReached(taskId, 'input_required');
        const [key] = Object.keys(waiting.inputRequests as object);
        assert.deepEqual(await result('tasks/update', { taskId, inputResponses: { [key!]: { action: 'decline' } } }), { resultType: 'complete' });
        const done = await statusReached(taskId, 'completed');
        assert.equal((done.result as { content: { text: string }[] }).content[0]!.text, 'Deletion cancelled');
        assert.equal(done.statusMessage, 'Declined', 'the completed task says how the user answered');
        const slow = (await result('tools/call', { name: 'slow_compute', arguments: { seconds: 60 } })).taskId as string;
        assert.deepEqual(await result('tasks/cancel', { taskId: slow }), { resultType: 'complete' });
        assert.equal((await call('ping')).error?.code, -32601);
        assert.equal((await call('tasks/result', { taskId: slow })).error?.code, -32601);
        assert.deepEqual(notifications.map(n => n.method), [], 'no notification without subscriptions/listen');
        assert.deepEqual(server.garbage, []);
    });

    it('streams notifications/tasks on stdout after subscriptions/listen, until the client cancels it', async () => {
        server = StdioLines.start();
        const notifications: Msg[] = [];
        server.onNotification = message => notifications.push(message);
        const taskId = (await result('tools/call', { name: 'slow_compute', arguments: { seconds: 1, label: 'piped' } })).taskId as string;
        const listenId = ++id;
        server.write({ jsonrpc: '2.0', id: listenId, method: 'subscriptions/listen', params: { notifications: { taskIds: [taskId] }, _meta: meta() } });
        await waitUntil(() => notifications.some(n => n.method === 'notifications/tasks' && n.params?.status === 'completed'), 'the completed notification', { everyMs: 20 });
        assert.equal(notifications[0]!.method, 'notifications/subscriptions/acknowledged');
        const done = notifications.find(n => n.method === 'notifications/tasks' && n.params?.status === 'completed')!;
        assert.equal((done.params!._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId'], listenId, 'the request id itself: a number stays a number');
        server.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: listenId } });
        const closed = await server.next();
        assert.equal(closed.id, listenId);
        assert.equal((closed.result!._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId'], listenId, 'the request id itself: a number stays a number');
    });

    it('answers a bad version with -32022 and missing _meta with -32602', async () => {
        server = StdioLines.start();
        const wrong = await call('tools/list', {}, undefined);
        assert.ok(wrong.result);
        const unsupported = await server.call(++id, 'tools/list', { _meta: meta(undefined, '2099-01-01') });
        assert.equal(unsupported.error?.code, -32022);
        const discover = await server.call(++id, 'server/discover', {});
        assert.equal(discover.error?.code, -32602);
    });

    it('answers each request by the _meta it carries, when a client changes its _meta on the same pipe', async () => {
        server = StdioLines.start();
        const extension = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
        const slow = (capabilities: Record<string, unknown>, version?: string) => server!.call(++id, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 }, _meta: meta(capabilities, version) });
        const kinds: unknown[] = [];
        // Each _meta is sent twice in a row: the second time the pipe has it parsed and checked already.
        for (const capabilities of [extension, extension, {}, {}, extension, extension]) {
            kinds.push((await slow(capabilities)).result?.resultType);
        }
        assert.deepEqual(kinds, ['task', 'task', 'complete', 'complete', 'task', 'task'], 'a task only while the request declares the extension');
        assert.equal((await slow(extension, '2099-01-01')).error?.code, -32022);
        assert.equal((await slow(extension, '2099-01-01')).error?.code, -32022, 'a refused _meta is refused again, not remembered as good');
        assert.equal((await slow(extension)).result?.resultType, 'task');
        assert.deepEqual(server.garbage, []);
    });

    it('keeps a pipe that sent initialize on 2025-11-25, whatever its requests carry', async () => {
        server = StdioLines.start();
        await server.initialize();
        const list = await call('tools/list');
        assert.equal(list.result!.resultType, undefined);
        assert.ok((list.result!.tools as Record<string, unknown>[]).some(tool => tool.execution !== undefined));
        assert.equal((await server.call(++id, 'ping', {})).result !== undefined, true);
    });

    it('before initialize, a request without a version is still refused as before', async () => {
        server = StdioLines.start();
        const response = await server.call(++id, 'tools/list', {});
        assert.equal(response.error?.code, -32600);
        assert.match(response.error!.message, /Server not initialized/);
    });
});
