/**
 * Resumable streams over 2025-11-25 Streamable HTTP (SEP-1699), against a real server process:
 * event ids and the priming event, a stream the server closes mid-call, a stream the client drops
 * mid-call, and what a Last-Event-ID of another session or another stream replays (nothing of
 * it). The window's bounds are in test/unit/server/transports/replayWindow.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { httpServerPerSuite } from '../../support/helpers.js';
import { INITIALIZE, type Msg, RawHttp, type StreamHandle } from '../../support/rawHttp.js';
import type { SseEvent } from '../../support/sse.js';
import { Feed } from '../../support/wait.js';

/** One stream as its client read it: every event in order, and how the connection went. */
interface Read {
    handle: StreamHandle;
    events: Feed<SseEvent<Msg>>;
}

function call(id: number, name: string, args: Record<string, unknown> = {}, progressToken?: string): object {
    return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(progressToken ? { _meta: { progressToken } } : {}) } };
}

/** POSTs `body` and reads its answer as it comes; `until` drops the connection at the first event it accepts (nothing after it counts as read). */
async function post(client: RawHttp, body: object, until?: (event: SseEvent<Msg>) => boolean): Promise<Read> {
    const events = new Feed<SseEvent<Msg>>();
    const read: { handle?: StreamHandle; dropped?: boolean } = {};
    const onEvent = (event: SseEvent<Msg>) => {
        if (read.dropped) {
            return;
        }
        events.push(event);
        if (until?.(event)) {
            read.dropped = true;
            read.handle?.close();
        }
    };
    const handle = await client.openEvents('POST', body, () => undefined, {}, onEvent);
    read.handle = handle;
    if (read.dropped) {
        handle.close();
    }
    return { handle, events };
}

/** GETs the stream `lastEventId` names and reads it as it comes. */
async function resume(client: RawHttp, lastEventId: string): Promise<Read> {
    const events = new Feed<SseEvent<Msg>>();
    const handle = await client.openEvents('GET', undefined, () => undefined, { 'last-event-id': lastEventId }, event => events.push(event));
    return { handle, events };
}

const messages = (read: Read): Msg[] => read.events.items.flatMap(event => (event.message ? [event.message] : []));
const streamOf = (id: string | undefined): string => /^(\d+)-\d+$/.exec(id ?? '')?.[1] ?? `not an event id: ${id}`;
const seqOf = (id: string | undefined): number => Number(/^\d+-(\d+)$/.exec(id ?? '')?.[1]);
const progressOf = (read: Read): unknown[] => messages(read).flatMap(m => (m.method === 'notifications/progress' ? [m.params?.progress] : []));
const responsesTo = (read: Read, id: number): Msg[] => messages(read).filter(m => m.id === id && ('result' in m || 'error' in m));

describe('resumable streams over 2025-11-25 HTTP', () => {
    const server = httpServerPerSuite(['--conformance-fixtures', '--log-level', 'debug']);

    const session = async (capabilities: Record<string, unknown> = {}): Promise<RawHttp> => {
        const client = new RawHttp(server.url);
        await client.initialize({ capabilities });
        return client;
    };

    it('starts each stream with a priming event (id, retry, empty data) and gives every event an id of that stream', async () => {
        const client = await session();
        const read = await post(client, call(1, 'test_tool_with_progress', {}, 'p'));
        await read.handle.closed;
        const [priming, ...rest] = read.events.items;
        assert.equal(priming?.retry, 1000);
        assert.equal(priming?.data, '', 'the priming event has empty data');
        assert.equal(priming?.message, undefined);
        assert.deepEqual(progressOf(read), [0, 50, 100]);
        assert.equal(responsesTo(read, 1).length, 1);
        assert.ok(rest.every(event => event.id !== undefined && event.message !== undefined), 'every message event has an id');
        const ids = read.events.items.map(event => event.id);
        assert.equal(new Set(ids.map(streamOf)).size, 1, `one stream: ${ids.join(' ')}`);
        assert.deepEqual(
            ids.map(seqOf),
            ids.map((_, i) => i + 1),
            'ids count up along the stream',
        );

        const standalone = new Feed<SseEvent<Msg>>();
        const get = await client.openEvents('GET', undefined, () => undefined, {}, event => standalone.push(event));
        const first = await standalone.waitFor(() => true, 'the GET stream’s first event');
        assert.equal(first.retry, 1000);
        assert.equal(first.data, '');
        assert.notEqual(streamOf(first.id), streamOf(ids[0]), 'the GET stream is another stream, with ids of its own');
        get.close();
        await client.close();
    });

    it('gives a client of an earlier revision ids but no priming event, and no closing mid-call', async () => {
        const client = new RawHttp(server.url);
        const init = await client.post({ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2025-06-18' } });
        assert.equal(init.json<Msg>().result?.protocolVersion, '2025-06-18');
        client.sessionId = init.header('mcp-session-id');
        await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' }, { headers: { 'mcp-protocol-version': '2025-06-18' } });
        const read = await post(client, call(1, 'test_tool_with_progress', {}, 'old'));
        await read.handle.closed;
        assert.ok(
            read.events.items.every(event => event.id !== undefined && event.message !== undefined && event.retry === undefined),
            'every event carries an id and a message',
        );
        assert.deepEqual(progressOf(read), [0, 50, 100]);
        const reconnect = await client.post(call(2, 'test_reconnection'));
        assert.match(reconnect.header('content-type') ?? '', /^application\/json/, 'answered on its own connection');
        assert.equal((reconnect.json<Msg>().result?.content as { text: string }[])[0]?.text, 'Answered on the original stream: this connection cannot be resumed.');
        await client.close();
    });

    it('still answers a call with nothing to send before its result in plain JSON', async () => {
        const client = await session();
        const reply = await client.post(call(1, 'test_simple_text'));
        assert.match(reply.header('content-type') ?? '', /^application\/json/);
        assert.equal(reply.json<Msg>().id, 1);
        await client.close();
    });

    it('closes a stream mid-call when the tool asks (test_reconnection), and gives the result once on a GET with Last-Event-ID', async () => {
        const client = await session();
        const first = await post(client, call(7, 'test_reconnection'));
        await first.handle.closed;
        const [priming, beforeClose, ...more] = first.events.items;
        assert.equal(priming?.retry, 1000);
        assert.equal(priming?.data, '');
        assert.deepEqual(beforeClose, { retry: 1000 }, 'a retry field just before the close, as the spec asks');
        assert.deepEqual(more, []);
        assert.equal(responsesTo(first, 7).length, 0);

        const resumed = await resume(client, priming!.id!);
        assert.equal(resumed.handle.status, 200);
        await resumed.handle.closed;
        const [result] = responsesTo(resumed, 7);
        assert.deepEqual((result?.result?.content as { text: string }[])[0]?.text, 'Reconnection test completed: the server closed the connection first, and this result came on the resumed stream.');
        assert.equal(responsesTo(resumed, 7).length, 1);
        assert.ok(resumed.events.items.every(event => event.message === undefined || streamOf(event.id) === streamOf(priming!.id)), 'only that stream’s events');
        await client.close();
    });

    it('keeps a call running when its client drops the stream, and replays what it missed, then the result, exactly once', async () => {
        const client = await session();
        const before = await post(client, call(3, 'test_tool_with_progress', {}, 'drop'), event => event.message?.method === 'notifications/progress');
        await before.handle.closed;
        assert.deepEqual(progressOf(before), [0], 'dropped after the first progress');
        // Resumed only once the response is kept: everything after progress 0 is then replayed, none of it live.
        await server.log.waitFor(/\[http\] stream \d+: the response to 3 waits for the client to resume/);

        const lastId = before.events.items.at(-1)!.id!;
        const after = await resume(client, lastId);
        await after.handle.closed;
        assert.deepEqual([...progressOf(before), ...progressOf(after)], [0, 50, 100], 'each progress exactly once, in order');
        assert.equal(responsesTo(before, 3).length + responsesTo(after, 3).length, 1, 'the result exactly once');
        assert.equal(responsesTo(after, 3).length, 1);
        assert.equal(after.events.items.at(-1)?.message?.id, 3, 'the stream ends with its response');
        assert.ok(
            after.events.items.filter(event => event.id !== undefined).every(event => streamOf(event.id) === streamOf(lastId) && seqOf(event.id) > seqOf(lastId)),
            'only events after the Last-Event-ID, of its stream',
        );
        await server.log.waitFor(new RegExp(`\\[http\\] stream ${streamOf(lastId)} resumed after ${lastId}: 3 missed event\\(s\\) replayed`));
        await client.close();
    });

    it('goes on live on the resumed connection when the result comes after the resume', async () => {
        const client = await session({ elicitation: {} });
        const asked = await post(client, call(4, 'test_elicitation', { message: 'Who?' }), event => event.message?.method === 'elicitation/create');
        await asked.handle.closed;
        const request = messages(asked).find(m => m.method === 'elicitation/create')!;
        const lastId = asked.events.items.at(-1)!.id!;
        const resumed = await resume(client, lastId);
        assert.equal(resumed.handle.status, 200);
        await server.log.waitFor(new RegExp(`resumed after ${lastId}: 0 missed event\\(s\\) replayed`));
        const answer = await client.send({ jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } } });
        assert.equal(answer.status, 202);
        await resumed.handle.closed;
        const [result] = responsesTo(resumed, 4);
        assert.match((result?.result?.content as { text: string }[])[0]?.text ?? '', /ada/);
        assert.equal(messages(resumed).length, 1, 'nothing but the result: the request was read before the drop');
        await client.close();
    });

    it('replays nothing for a Last-Event-ID of another session (400), and leaves that stream to its own session', async () => {
        const owner = await session();
        const other = await session();
        const first = await post(owner, call(5, 'test_reconnection'));
        await first.handle.closed;
        const id = first.events.items[0]!.id!;
        // The other session has a stream waiting too: an id could only name it if ids were numbered per session.
        const its = await post(other, call(5, 'test_reconnection'));
        await its.handle.closed;
        assert.notEqual(streamOf(its.events.items[0]!.id), streamOf(id));

        const stolen = await resume(other, id);
        assert.equal(stolen.handle.status, 400);
        assert.match(stolen.handle.reply.json<Msg>().error?.message ?? '', /Last-Event-ID names no event of a stream of this session/);
        assert.equal(stolen.handle.reply.messages.filter(m => m.id === 5).length, 0, 'nothing of the other session');

        const own = await resume(owner, id);
        await own.handle.closed;
        assert.equal(responsesTo(own, 5).length, 1, 'its own session still gets it');
        await owner.close();
        await other.close();
    });

    it('replays only the stream a Last-Event-ID names, never events of another stream of the session', async () => {
        const client = await session();
        const a = await post(client, call(10, 'test_reconnection'));
        const b = await post(client, call(11, 'test_reconnection'));
        await Promise.all([a.handle.closed, b.handle.closed]);
        const standalone = new Feed<SseEvent<Msg>>();
        const get = await client.openEvents('GET', undefined, () => undefined, {}, event => standalone.push(event));
        const getPriming = await standalone.waitFor(() => true, 'the GET stream’s priming event');
        get.close();
        await get.closed;

        const onlyB = await resume(client, b.events.items[0]!.id!);
        await onlyB.handle.closed;
        assert.deepEqual(
            messages(onlyB).map(m => m.id),
            [11],
        );
        const onlyA = await resume(client, a.events.items[0]!.id!);
        await onlyA.handle.closed;
        assert.deepEqual(
            messages(onlyA).map(m => m.id),
            [10],
        );
        // The GET stream's own resume carries neither response (they were never its events), only what comes next.
        const getAgain = await resume(client, getPriming.id!);
        assert.equal(getAgain.handle.status, 200);
        const taskId = (await client.createTask({ seconds: 0, label: 'next' })).taskId;
        await getAgain.events.waitFor(event => event.message?.params?.taskId === taskId, 'a notification of the resumed GET stream');
        assert.deepEqual(
            messages(getAgain).filter(m => 'result' in m || 'error' in m),
            [],
        );
        getAgain.handle.close();
        await client.close();
    });

    it('replays the GET stream’s own events after its Last-Event-ID and makes the resumed connection the session’s stream', async () => {
        const client = await session();
        const first = new Feed<SseEvent<Msg>>();
        const get = await client.openEvents('GET', undefined, () => undefined, {}, event => first.push(event));
        const priming = await first.waitFor(() => true, 'the priming event');
        const taskId = (await client.createTask({ seconds: 0, label: 'on-get' })).taskId;
        const status = await first.waitFor(event => event.message?.params?.taskId === taskId && event.message.params.status === 'completed', 'the task’s status on the GET stream');
        get.close();
        await get.closed;

        // The client says it has only the priming event: what came after it on that stream comes again, and nothing else.
        const again = await resume(client, priming.id!);
        assert.equal(again.handle.status, 200);
        const replayed = await again.events.waitFor(event => event.id === status.id, 'the replayed status');
        assert.deepEqual(replayed.message, status.message);
        const fresh = (await client.createTask({ seconds: 0, label: 'after-resume' })).taskId;
        await again.events.waitFor(event => event.message?.params?.taskId === fresh && event.message.params.status === 'completed', 'a new notification on the resumed stream');
        const conflict = await client.openStream(() => undefined);
        assert.equal(conflict.status, 409, 'the resumed connection is the session’s open GET stream');
        again.handle.close();
        await client.close();
    });

    it('answers a Last-Event-ID that names nothing with 400, and a GET without one as a new stream', async () => {
        const client = await session();
        for (const id of ['nonsense', '999999999-1', '']) {
            const read = await client.openEvents('GET', undefined, () => undefined, id === '' ? {} : { 'last-event-id': id });
            assert.equal(read.status, id === '' ? 200 : 400, `Last-Event-ID ${JSON.stringify(id)}`);
            read.close();
            await read.closed;
        }
        await client.close();
    });
});
