import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { httpServerPerSuite } from '../../support/helpers.js';
import { HttpReply, INITIALIZE, RawHttp, type JsonRpcError } from '../../support/rawHttp.js';
import { waitUntil } from '../../support/wait.js';

const BODY_LIMIT = 2048;

function errorBody(res: HttpReply): JsonRpcError {
    assert.match(res.header('content-type') ?? '', /application\/json/);
    const body = res.json<JsonRpcError>();
    assert.equal(body.jsonrpc, '2.0');
    return body;
}

describe('Streamable HTTP transport', () => {
    const server = httpServerPerSuite(['--body-limit', String(BODY_LIMIT)]);

    const session = async (): Promise<RawHttp> => {
        const raw = new RawHttp(server.url);
        await raw.initialize();
        return raw;
    };
    const send = (raw: RawHttp, method: string, headers: Record<string, string> = {}, body?: string) => raw.send(body, { method, headers });

    it('answers initialize with JSON and an Mcp-Session-Id header', async () => {
        const raw = new RawHttp(server.url);
        const res = await raw.post(INITIALIZE);
        assert.equal(res.status, 200);
        assert.match(res.header('content-type') ?? '', /^application\/json/);
        const id = res.header('mcp-session-id');
        assert.match(id ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        const body = res.json() as { id: number; result: { protocolVersion: string; capabilities: { tasks?: unknown } } };
        assert.equal(body.id, 0);
        assert.equal(body.result.protocolVersion, '2025-11-25');
        assert.ok(body.result.capabilities.tasks);

        const again = await new RawHttp(server.url).post(INITIALIZE);
        assert.notEqual(again.header('mcp-session-id'), id, 'each initialize opens its own session');
    });

    it('rejects a request without Mcp-Session-Id with 400', async () => {
        const res = await new RawHttp(server.url).post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
        assert.equal(res.status, 400);
        const body = errorBody(res);
        assert.equal(body.error.code, -32600);
        assert.match(body.error.message, /Mcp-Session-Id/);
    });

    it('answers an unknown session with 404 on POST, GET and DELETE', async () => {
        const raw = new RawHttp(server.url);
        raw.sessionId = randomUUID();
        const post = await raw.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
        assert.equal(post.status, 404);
        assert.match((errorBody(post)).error.message, /Session not found/);
        const get = await send(raw, 'GET', { accept: 'text/event-stream' });
        assert.equal(get.status, 404);
        const del = await send(raw, 'DELETE');
        assert.equal(del.status, 404);
    });

    it("ends a session on DELETE and cancels that session's running tasks only", async () => {
        const doomed = await session();
        const other = await session();
        const label = `delete-${randomUUID().slice(0, 8)}`;
        const created = await doomed.call('tools/call', { name: 'slow_compute', arguments: { seconds: 30, label }, task: {} });
        assert.equal((created.result as { task: { status: string } }).task.status, 'working');
        const kept = await other.call('tools/call', { name: 'slow_compute', arguments: { seconds: 30, label: `${label}-other` }, task: {} });
        const keptId = (kept.result as { task: { taskId: string } }).task.taskId;

        const del = await send(doomed, 'DELETE');
        assert.equal(del.status, 200);
        await server.log.waitFor(new RegExp(`\\[slow_compute\\] cancelled "${label}" at 0/30`));

        const after = await doomed.post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        assert.equal(after.status, 404);
        const still = await other.call('tasks/get', { taskId: keptId });
        assert.equal((still.result as { status: string }).status, 'working', "another session's task keeps running");
        await other.call('tasks/cancel', { taskId: keptId });
    });

    it('requires Accept: text/event-stream on GET (406)', async () => {
        const raw = await session();
        for (const accept of ['application/json', '*/*']) {
            const res = await send(raw, 'GET', { accept });
            assert.equal(res.status, 406, `Accept: ${accept}`);
            assert.match((errorBody(res)).error.message, /text\/event-stream/);
        }
    });

    it('allows one GET stream per session (409 for a second)', async () => {
        const raw = await session();
        const first = await raw.openStream(() => undefined);
        assert.equal(first.status, 200);
        assert.match(first.reply.header('content-type') ?? '', /^text\/event-stream/);
        const second = await raw.openStream(() => undefined);
        assert.equal(second.status, 409);
        assert.match(errorBody(second.reply).error.message, /already has an open GET stream/);

        first.close();
        await first.closed;
        // Once the server has seen the first stream go, the slot is free again (only asking tells when).
        const third = await waitUntil(async () => {
            const attempt = await raw.openStream(() => undefined);
            return attempt.status === 200 ? attempt : undefined;
        }, 'a new GET stream after closing the first');
        third.close();
    });

    it('rejects other HTTP methods with 405 and an Allow header', async () => {
        const raw = await session();
        for (const method of ['PUT', 'PATCH']) {
            const res = await send(raw, method, { 'content-type': 'application/json' }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
            assert.equal(res.status, 405, method);
            assert.equal(res.header('allow'), 'GET, POST, DELETE');
        }
    });

    it('requires Content-Type: application/json on POST (415)', async () => {
        const raw = await session();
        const res = await raw.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'content-type': 'text/plain' });
        assert.equal(res.status, 415);
        assert.match((errorBody(res)).error.message, /Content-Type/);
        const ok = await raw.call('ping');
        assert.deepEqual(ok.result, {});
    });

    it('answers malformed JSON with 400 and -32700, then keeps serving', async () => {
        const raw = await session();
        const res = await raw.post('{"jsonrpc":"2.0","id":1,"method":');
        assert.equal(res.status, 400);
        const body = errorBody(res);
        assert.equal(body.error.code, -32700);
        assert.equal(body.id, null);
        const next = await raw.call('tools/list');
        assert.ok(Array.isArray((next.result as { tools: unknown[] }).tools));
    });

    it('rejects batches and messages that are not JSON-RPC 2.0 with 400 and -32600', async () => {
        const raw = await session();
        const cases: [unknown, RegExp][] = [
            [
                [
                    { jsonrpc: '2.0', id: 1, method: 'ping' },
                    { jsonrpc: '2.0', id: 2, method: 'ping' },
                ],
                /Batch/,
            ],
            [{ jsonrpc: '1.0', id: 1, method: 'ping' }, /jsonrpc must be "2\.0"/],
            [{ id: 1, method: 'ping' }, /jsonrpc/],
            [{ jsonrpc: '2.0', id: 1 }, /Not a request, notification or response/],
            [{ jsonrpc: '2.0', id: 1, method: 'ping', params: [1] }, /params must be an object/],
            [{ jsonrpc: '2.0', id: { nested: true }, method: 'ping' }, /id must be a string or a number/],
            [{ jsonrpc: '2.0', id: 1, method: '' }, /method must be a non-empty string/],
            [42, /must be a JSON object/],
        ];
        for (const [message, reason] of cases) {
            const res = await raw.post(JSON.stringify(message));
            assert.equal(res.status, 400, JSON.stringify(message));
            const body = errorBody(res);
            assert.equal(body.error.code, -32600, JSON.stringify(message));
            assert.match(body.error.message, reason);
        }
        assert.deepEqual((await raw.call('ping')).result, {});
    });

    it('answers an unknown method with -32601', async () => {
        const raw = await session();
        const response = await raw.call('no/such/method');
        assert.equal((response.error as { code: number }).code, -32601);
        assert.match((response.error as { message: string }).message, /no\/such\/method/);
    });

    it('refuses a body over --body-limit with 413, declared or chunked, and keeps serving', async () => {
        const raw = await session();
        const body = (padding: number) => JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping', params: { pad: 'x'.repeat(padding) } });
        const big = body(10 * 1024);

        const declared = await raw.post(big);
        assert.equal(declared.status, 413);
        assert.match((errorBody(declared)).error.message, new RegExp(`larger than ${BODY_LIMIT} bytes`));

        // Several times: a server that resets the connection instead of answering fails some of them.
        for (let i = 0; i < 5; i++) {
            const chunked = await raw.send(big, { chunked: true });
            assert.equal(chunked.status, 413, `chunked attempt ${i}`);
            assert.match((errorBody(chunked)).error.message, /larger than/);
        }

        const under = await raw.post(body(BODY_LIMIT - 200));
        assert.equal(under.status, 200, 'a body just under the limit is accepted');
        assert.deepEqual((under.json() as { result: unknown }).result, {});
        assert.deepEqual((await raw.call('ping')).result, {});
    });

    it('answers notifications and responses with 202 and no body', async () => {
        const raw = await session();
        const notification = await raw.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } });
        assert.equal(notification.status, 202);
        assert.equal(notification.body, '');
        const response = await raw.post({ jsonrpc: '2.0', id: 12345, result: {} });
        assert.equal(response.status, 202);
        assert.equal(response.body, '');
    });

    it('answers greet with plain JSON', async () => {
        const raw = await session();
        const res = await raw.post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'greet', arguments: { name: 'Ada' } } });
        assert.equal(res.status, 200);
        assert.match(res.header('content-type') ?? '', /^application\/json/);
        assert.equal(res.header('mcp-session-id'), raw.sessionId);
        const body = res.json() as { id: number; result: { content: { text: string }[] } };
        assert.equal(body.id, 3);
        assert.equal(body.result.content[0]?.text, 'Hello, Ada!');
    });

    it('upgrades an inline slow_compute to SSE when it sends progress, and stays JSON when it sends none', async () => {
        const raw = await session();
        const call = (id: number, meta?: Record<string, unknown>) =>
            raw.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 1, label: `sse-${id}` }, ...(meta ? { _meta: meta } : {}) } });
        const [withToken, withoutToken] = await Promise.all([call(4, { progressToken: 'tok-4' }), call(5)]);

        assert.match(withToken.header('content-type') ?? '', /^text\/event-stream/);
        const messages = withToken.messages;
        assert.equal(messages.length, 2, JSON.stringify(messages));
        assert.equal(messages[0]!.method, 'notifications/progress');
        assert.deepEqual(messages[0]!.params, { progressToken: 'tok-4', progress: 1, total: 1, message: 'sse-4: 1/1 s' });
        assert.equal(messages[1]!.id, 4);
        assert.match(JSON.stringify(messages[1]!.result), /Computation \\"sse-4\\" completed/);

        assert.match(withoutToken.header('content-type') ?? '', /^application\/json/);
        const plain = withoutToken.json() as { id: number; result: unknown };
        assert.equal(plain.id, 5);
        assert.match(JSON.stringify(plain.result), /Computation \\"sse-5\\" completed/);
    });
});

describe('idle HTTP sessions', () => {
    const server = httpServerPerSuite(['--session-idle-timeout', '300ms']);

    it('closes an abandoned session but keeps one whose GET stream is open', async () => {
        const watched = new RawHttp(server.url);
        await watched.initialize();
        const stream = await watched.openStream(() => undefined);
        assert.equal(stream.status, 200);
        // Opened after the watched session went quiet, so it comes due after it would have.
        const abandoned = new RawHttp(server.url);
        await abandoned.initialize();
        const closing = (raw: RawHttp) => new RegExp(`closing idle session ${raw.sessionId!.slice(0, 8)}`);

        const abandonedClosed = await server.log.waitFor(closing(abandoned));
        const gone = await abandoned.post({ jsonrpc: '2.0', id: 1, method: 'ping' });
        assert.equal(gone.status, 404);
        // Had the open stream not counted, the watched session would have been closed first.
        assert.ok(!server.log.lines.slice(0, server.log.lines.indexOf(abandonedClosed) + 1).some(line => closing(watched).test(line)));
        assert.deepEqual((await watched.call('ping')).result, {});

        // Without its stream it is idle like any other.
        stream.close();
        await server.log.waitFor(closing(watched));
        const closed = await watched.post({ jsonrpc: '2.0', id: 3, method: 'ping' });
        assert.equal(closed.status, 404);
    });
});
