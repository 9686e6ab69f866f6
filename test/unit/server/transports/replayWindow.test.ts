/**
 * The replay window's bounds, over real HTTP on loopback but in process, so time can be a
 * ManualClock: past 1,000 events, 1 MiB of their text or 60 s the oldest go first, a resume that
 * would leave a gap is refused, and a dropped stream not resumed within 60 s loses its request. The rest of resumption, against a server process, is
 * test/server/transports/resume.test.ts.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { z } from 'zod';
import { createTasksServer, defineTool, listenHttp, silentLogger, textResult, type HttpHandle, type HttpOptions, type TasksServer } from '../../../../server/src/index.js';
import { type Msg, RawHttp, type StreamHandle } from '../../../support/rawHttp.js';
import type { SseEvent } from '../../../support/sse.js';
import { ManualClock } from '../../../support/manualClock.js';

/** Reports progress 1..count (each message `size` characters long), closes its connection, then answers. */
const burst = defineTool({
    name: 'burst',
    title: 'burst',
    description: 'Reports progress 1..count, closes the connection, answers.',
    inputSchema: z.object({ count: z.number(), size: z.number().default(0) }),
    taskSupport: 'forbidden',
    async run({ count, size }, ctx) {
        for (let i = 1; i <= count; i++) {
            ctx.progress(i, count, 'x'.repeat(size));
        }
        assert.ok(ctx.closeConnection?.(), 'a 2025-11-25 session over HTTP can close the connection');
        return textResult('burst done');
    },
});

/** Reports progress once, closes its connection, then waits until it is stopped. */
const hold = defineTool({
    name: 'hold',
    title: 'hold',
    description: 'Reports progress once, closes the connection, waits to be stopped.',
    inputSchema: z.object({}),
    taskSupport: 'forbidden',
    async run(_args, ctx) {
        ctx.progress(1, 1);
        ctx.closeConnection?.();
        return new Promise((_resolve, reject) =>
            ctx.signal.addEventListener('abort', () => {
                holdStopped = true;
                reject(ctx.signal.reason as Error);
            }),
        );
    },
});
let holdStopped = false;

describe('the replay window of a session', () => {
    const clock = new ManualClock();
    let core: TasksServer | undefined;
    let http: HttpHandle | undefined;
    let client: RawHttp | undefined;

    async function start(replay: HttpOptions['replay']): Promise<RawHttp> {
        core = createTasksServer({ tools: [burst, hold], logger: silentLogger });
        http = await listenHttp(core, { host: '127.0.0.1', port: 0, bodyLimitBytes: 1 << 20, sessionIdleMs: 3_600_000, clock, replay });
        client = new RawHttp(http.url);
        await client.initialize();
        return client;
    }

    afterEach(async () => {
        await client?.close();
        // close() waits for answers in progress on the server's clock: time has to move for it.
        const closing = http?.close();
        await clock.tick(5000);
        await closing;
        await core?.close();
    });

    /** Calls `name`, reads the POST stream to its end (the tool closes it); its events. */
    async function called(raw: RawHttp, id: number, name: string, args: Record<string, unknown>): Promise<SseEvent<Msg>[]> {
        const events: SseEvent<Msg>[] = [];
        const handle = await raw.openEvents('POST', { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: { progressToken: `p${id}` } } }, () => undefined, {}, event => events.push(event));
        await handle.closed;
        return events;
    }

    async function resume(raw: RawHttp, lastEventId: string): Promise<{ handle: StreamHandle; messages: Msg[] }> {
        const messages: Msg[] = [];
        const handle = await raw.openEvents('GET', undefined, message => messages.push(message), { 'last-event-id': lastEventId });
        await handle.closed;
        return { handle, messages };
    }

    const progress = (messages: Msg[]) => messages.flatMap(m => (m.method === 'notifications/progress' ? [m.params?.progress] : []));
    /**
     * The id of progress `n` of a burst: the stream's sequence counts the priming event, then each
     * progress. Computed, not read: a connection that fell behind skips superseded progress (SseOutbox),
     * while the window keeps every event.
     */
    const idOf = (events: SseEvent<Msg>[], n: number) => `${events[0]!.id!.split('-')[0]}-${n + 1}`;

    it('holds the newest 1,000 events: a resume after a dropped one is refused, one after the oldest kept replays the rest', async () => {
        const raw = await start(undefined);
        // priming, progress 1..1000, then (the connection closed) the response: 1,001 events, so progress 1 is dropped.
        const events = await called(raw, 1, 'burst', { count: 1000 });
        assert.equal(events[0]!.data, '', 'the priming event comes first');

        const gap = await resume(raw, events[0]!.id!);
        assert.equal(gap.handle.status, 400);
        assert.match(gap.handle.reply.json<Msg>().error?.message ?? '', /too old: events after it on that stream are no longer kept/);

        const rest = await resume(raw, idOf(events, 1));
        assert.equal(rest.handle.status, 200);
        assert.deepEqual(
            progress(rest.messages),
            Array.from({ length: 999 }, (_, i) => i + 2),
        );
        assert.deepEqual(
            rest.messages.filter(m => m.id === 1).map(m => (m.result?.content as { text: string }[])[0]?.text),
            ['burst done'],
        );
    });

    it('holds events up to 1 MiB of their text, dropping the oldest past it', async () => {
        const raw = await start(undefined);
        // Each progress frame is a little over 200,000 characters: five of them and the response fit in 1 MiB, six do not.
        const events = await called(raw, 2, 'burst', { count: 8, size: 200_000 });
        const refused = await resume(raw, idOf(events, 2));
        assert.equal(refused.handle.status, 400, 'progress 3 is gone');
        const kept = await resume(raw, idOf(events, 3));
        assert.deepEqual(progress(kept.messages), [4, 5, 6, 7, 8]);
        assert.deepEqual(
            kept.messages.filter(m => m.id === 2).length,
            1,
        );
    });

    it('keeps the newest event even when it alone is over the size', async () => {
        const raw = await start({ bytes: 1 });
        const events = await called(raw, 3, 'burst', { count: 3 });
        const refused = await resume(raw, idOf(events, 2));
        assert.equal(refused.handle.status, 400, 'progress 3 is gone: the response took its place');
        const kept = await resume(raw, idOf(events, 3));
        assert.deepEqual(
            kept.messages.map(m => m.id),
            [3],
            'only the response, the newest event',
        );
    });

    it('drops events older than 60 s, and gives up on a dropped stream not resumed within them', async () => {
        const raw = await start(undefined);
        holdStopped = false;
        const events = await called(raw, 4, 'hold', {});
        const priming = events[0]!.id!;
        const progressed = idOf(events, 1);

        await clock.tick(59_999);
        assert.equal(holdStopped, false, 'the request runs on while its client may still come back');
        // 60 s after the close the request is given up (as a closed connection used to be at once); its error is kept.
        await clock.tick(1);
        assert.equal(holdStopped, true);
        const atAge = await resume(raw, priming);
        assert.deepEqual(progress(atAge.messages), [1], 'an event exactly 60 s old is still kept');
        const [gaveUp] = atAge.messages.filter(m => m.id === 4);
        assert.match(gaveUp?.error?.message ?? '', /closed the HTTP connection/);

        await clock.tick(1);
        const tooOld = await resume(raw, priming);
        assert.equal(tooOld.handle.status, 400, 'the progress is now older than 60 s');
        const stillKept = await resume(raw, progressed);
        assert.deepEqual(
            stillKept.messages.map(m => m.id),
            [4],
            'the response, newer, is kept',
        );
    });
});
