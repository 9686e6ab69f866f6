import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openGetStream, RawHttp, readMessages, startHttpServer, waitUntil, type HttpServer } from './helpers.js';
import { INITIALIZE, type JsonRpcError } from './rawHelpers.js';

const BODY_LIMIT = 2048;

async function errorBody(res: Response): Promise<JsonRpcError> {
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const body = (await res.json()) as JsonRpcError;
    assert.equal(body.jsonrpc, '2.0');
    return body;
}

/** A body of `bytes` bytes sent as a stream, so fetch uses chunked transfer encoding. */
function chunkedBody(text: string): ReadableStream<Uint8Array> {
    const bytes = new TextEncoder().encode(text);
    return new ReadableStream({
        start(controller) {
            for (let i = 0; i < bytes.length; i += 1024) {
                controller.enqueue(bytes.slice(i, i + 1024));
            }
            controller.close();
        },
    });
}

describe('Streamable HTTP transport', () => {
    let server: HttpServer;

    before(async () => {
        server = await startHttpServer(['--body-limit', String(BODY_LIMIT)]);
    });
    after(async () => {
        await server.stop();
    });

    const session = async (): Promise<RawHttp> => {
        const raw = new RawHttp(server.url);
        await raw.initialize();
        return raw;
    };
    const send = (raw: RawHttp, method: string, headers: Record<string, string> = {}, body?: string) =>
        fetch(server.url, { method, headers: { ...(raw.sessionId ? { 'mcp-session-id': raw.sessionId } : {}), ...headers }, body });

    it('answers initialize with JSON and an Mcp-Session-Id header', async () => {
        const raw = new RawHttp(server.url);
        const res = await raw.post(INITIALIZE);
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        const id = res.headers.get('mcp-session-id');
        assert.match(id ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        const body = (await res.json()) as { id: number; result: { protocolVersion: string; capabilities: { tasks?: unknown } } };
        assert.equal(body.id, 0);
        assert.equal(body.result.protocolVersion, '2025-11-25');
        assert.ok(body.result.capabilities.tasks);

        const again = await new RawHttp(server.url).post(INITIALIZE);
        await again.text();
        assert.notEqual(again.headers.get('mcp-session-id'), id, 'each initialize opens its own session');
    });

    it('rejects a request without Mcp-Session-Id with 400', async () => {
        const res = await new RawHttp(server.url).post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
        assert.equal(res.status, 400);
        const body = await errorBody(res);
        assert.equal(body.error.code, -32600);
        assert.match(body.error.message, /Mcp-Session-Id/);
    });

    it('answers an unknown session with 404 on POST, GET and DELETE', async () => {
        const raw = new RawHttp(server.url);
        raw.sessionId = randomUUID();
        const post = await raw.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
        assert.equal(post.status, 404);
        assert.match((await errorBody(post)).error.message, /Session not found/);
        const get = await send(raw, 'GET', { accept: 'text/event-stream' });
        assert.equal(get.status, 404);
        await get.text();
        const del = await send(raw, 'DELETE');
        assert.equal(del.status, 404);
        await del.text();
    });

    it("ends a session on DELETE and cancels that session's running tasks only", async () => {
        const doomed = await session();
        const other = await session();
        const label = `delete-${randomUUID().slice(0, 8)}`;
        const created = await doomed.call(1, 'tools/call', { name: 'slow_compute', arguments: { seconds: 30, label }, task: {} });
        assert.equal((created.result as { task: { status: string } }).task.status, 'working');
        const kept = await other.call(1, 'tools/call', { name: 'slow_compute', arguments: { seconds: 30, label: `${label}-other` }, task: {} });
        const keptId = (kept.result as { task: { taskId: string } }).task.taskId;

        const del = await send(doomed, 'DELETE');
        assert.equal(del.status, 200);
        await del.text();
        await server.log.waitFor(new RegExp(`\\[slow_compute\\] cancelled "${label}" at 0/30`));

        const after = await doomed.post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        assert.equal(after.status, 404);
        await after.text();
        const still = await other.call(2, 'tasks/get', { taskId: keptId });
        assert.equal((still.result as { status: string }).status, 'working', "another session's task keeps running");
        await other.call(3, 'tasks/cancel', { taskId: keptId });
    });

    it('requires Accept: text/event-stream on GET (406)', async () => {
        const raw = await session();
        for (const accept of ['application/json', '*/*']) {
            const res = await send(raw, 'GET', { accept });
            assert.equal(res.status, 406, `Accept: ${accept}`);
            assert.match((await errorBody(res)).error.message, /text\/event-stream/);
        }
    });

    it('allows one GET stream per session (409 for a second)', async () => {
        const raw = await session();
        const first = await openGetStream(raw, () => undefined);
        assert.equal(first.response.status, 200);
        assert.match(first.response.headers.get('content-type') ?? '', /^text\/event-stream/);
        const second = await openGetStream(raw, () => undefined);
        assert.equal(second.response.status, 409);
        assert.match((await errorBody(second.response)).error.message, /already has an open GET stream/);

        first.close();
        // Once the first stream is gone the slot is free again.
        const third = await waitUntil(
            async () => {
                const attempt = await openGetStream(raw, () => undefined);
                if (attempt.response.status === 200) {
                    return attempt;
                }
                await attempt.response.text();
                return undefined;
            },
            3000,
            'a new GET stream after closing the first',
        );
        third.close();
    });

    it('rejects other HTTP methods with 405 and an Allow header', async () => {
        const raw = await session();
        for (const method of ['PUT', 'PATCH']) {
            const res = await send(raw, method, { 'content-type': 'application/json' }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
            assert.equal(res.status, 405, method);
            assert.equal(res.headers.get('allow'), 'GET, POST, DELETE');
            await res.text();
        }
    });

    it('requires Content-Type: application/json on POST (415)', async () => {
        const raw = await session();
        const res = await raw.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'content-type': 'text/plain' });
        assert.equal(res.status, 415);
        assert.match((await errorBody(res)).error.message, /Content-Type/);
        const ok = await raw.call(2, 'ping');
        assert.deepEqual(ok.result, {});
    });

    it('answers malformed JSON with 400 and -32700, then keeps serving', async () => {
        const raw = await session();
        const res = await raw.post('{"jsonrpc":"2.0","id":1,"method":');
        assert.equal(res.status, 400);
        const body = await errorBody(res);
        assert.equal(body.error.code, -32700);
        assert.equal(body.id, null);
        const next = await raw.call(2, 'tools/list');
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
            const body = await errorBody(res);
            assert.equal(body.error.code, -32600, JSON.stringify(message));
            assert.match(body.error.message, reason);
        }
        assert.deepEqual((await raw.call(9, 'ping')).result, {});
    });

    it('answers an unknown method with -32601', async () => {
        const raw = await session();
        const response = await raw.call(1, 'no/such/method');
        assert.equal((response.error as { code: number }).code, -32601);
        assert.match((response.error as { message: string }).message, /no\/such\/method/);
    });

    it('refuses a body over --body-limit with 413, declared or chunked, and keeps serving', async () => {
        const raw = await session();
        const body = (padding: number) => JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping', params: { pad: 'x'.repeat(padding) } });
        const big = body(10 * 1024);

        const declared = await raw.post(big);
        assert.equal(declared.status, 413);
        assert.match((await errorBody(declared)).error.message, new RegExp(`larger than ${BODY_LIMIT} bytes`));

        // Several times: a server that resets the connection instead of answering fails some of them.
        for (let i = 0; i < 5; i++) {
            const chunked = await fetch(server.url, {
                method: 'POST',
                headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': raw.sessionId! },
                body: chunkedBody(big),
                duplex: 'half',
            } as RequestInit);
            assert.equal(chunked.status, 413, `chunked attempt ${i}`);
            assert.match((await errorBody(chunked)).error.message, /larger than/);
        }

        const under = await raw.post(body(BODY_LIMIT - 200));
        assert.equal(under.status, 200, 'a body just under the limit is accepted');
        assert.deepEqual(((await under.json()) as { result: unknown }).result, {});
        assert.deepEqual((await raw.call(8, 'ping')).result, {});
    });

    it('answers notifications and responses with 202 and no body', async () => {
        const raw = await session();
        const notification = await raw.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } });
        assert.equal(notification.status, 202);
        assert.equal(await notification.text(), '');
        const response = await raw.post({ jsonrpc: '2.0', id: 12345, result: {} });
        assert.equal(response.status, 202);
        assert.equal(await response.text(), '');
    });

    it('answers greet with plain JSON', async () => {
        const raw = await session();
        const res = await raw.post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'greet', arguments: { name: 'Ada' } } });
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        assert.equal(res.headers.get('mcp-session-id'), raw.sessionId);
        const body = (await res.json()) as { id: number; result: { content: { text: string }[] } };
        assert.equal(body.id, 3);
        assert.equal(body.result.content[0]?.text, 'Hello, Ada!');
    });

    it('upgrades an inline slow_compute to SSE when it sends progress, and stays JSON when it sends none', async () => {
        const raw = await session();
        const call = (id: number, meta?: Record<string, unknown>) =>
            raw.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 1, label: `sse-${id}` }, ...(meta ? { _meta: meta } : {}) } });
        const [withToken, withoutToken] = await Promise.all([call(4, { progressToken: 'tok-4' }), call(5)]);

        assert.match(withToken.headers.get('content-type') ?? '', /^text\/event-stream/);
        const messages = await readMessages(withToken);
        assert.equal(messages.length, 2, JSON.stringify(messages));
        assert.equal(messages[0]!.method, 'notifications/progress');
        assert.deepEqual(messages[0]!.params, { progressToken: 'tok-4', progress: 1, total: 1, message: 'sse-4: 1/1 s' });
        assert.equal(messages[1]!.id, 4);
        assert.match(JSON.stringify(messages[1]!.result), /Computation \\"sse-4\\" completed/);

        assert.match(withoutToken.headers.get('content-type') ?? '', /^application\/json/);
        const plain = (await withoutToken.json()) as { id: number; result: unknown };
        assert.equal(plain.id, 5);
        assert.match(JSON.stringify(plain.result), /Computation \\"sse-5\\" completed/);
    });
});

describe('idle HTTP sessions', () => {
    let server: HttpServer;

    before(async () => {
        server = await startHttpServer(['--session-idle-timeout', '300ms']);
    });
    after(async () => {
        await server.stop();
    });

    it('closes an abandoned session but keeps one whose GET stream is open', async () => {
        const started = Date.now();
        const abandoned = new RawHttp(server.url);
        await abandoned.initialize();
        const watched = new RawHttp(server.url);
        await watched.initialize();
        const stream = await openGetStream(watched, () => undefined);
        assert.equal(stream.response.status, 200);

        await server.log.waitFor(new RegExp(`closing idle session ${abandoned.sessionId!.slice(0, 8)}`), 3000);
        const gone = await abandoned.post({ jsonrpc: '2.0', id: 1, method: 'ping' });
        assert.equal(gone.status, 404);
        await gone.text();

        // Well past the timeout, the session with a stream is still there.
        await new Promise(r => setTimeout(r, Math.max(0, 1000 - (Date.now() - started))));
        assert.ok(!server.log.lines.some(line => line.includes(`closing idle session ${watched.sessionId!.slice(0, 8)}`)));
        assert.deepEqual((await watched.call(2, 'ping')).result, {});

        // Without its stream it is idle like any other.
        stream.close();
        await server.log.waitFor(new RegExp(`closing idle session ${watched.sessionId!.slice(0, 8)}`), 3000);
        const closed = await watched.post({ jsonrpc: '2.0', id: 3, method: 'ping' });
        assert.equal(closed.status, 404);
        await closed.text();
    });
});
