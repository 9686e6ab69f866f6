/**
 * The replay window's bounds, over real HTTP on loopback but in process, so the limits can be
 * small and time can be a ManualClock: the oldest events go first past the count, the size or the
 * age, a resume that would leave a gap is refused, and a dropped stream not resumed within the
 * age loses its request. The rest of resumption, against a server process, is
 * test/server/transports/resume.test.ts.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { z } from 'zod';
import { createTasksServer, defineTool, listenHttp, silentLogger, textResult, type HttpHandle, type HttpOptions, type TasksServer } from '../../../../server/src/index.js';
import { type Msg, RawHttp, type StreamHandle } from '../../../support/rawHttp.js';
import type { SseEvent } from '../../../support/sse.js';
import { ManualClock } from '../../../support/manualClock.js';

const AGE_MS = 1000;

/** Reports progress 1..count, closes its connection, then answers. */
const burst = defineTool({
    name: 'burst',
    title: 'burst',
    description: 'Reports progress 1..count, closes the connection, answers.',
    inputSchema: z.object({ count: z.number() }),
    taskSupport: 'forbidden',
    async run({ count }, ctx) {
        for (let i = 1; i <= count; i++) {
            ctx.progress(i, count);
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
        return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)));
    },
});

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
    const idOf = (events: SseEvent<Msg>[], progressValue: number) => events.find(e => e.message?.params?.progress === progressValue)!.id!;

    it('holds the newest events up to its count: a resume after a dropped one is refused, one after the oldest kept replays the rest', async () => {
        const raw = await start({ events: 3 });
        // priming, progress 1..5, then (the connection closed) the response: the window keeps progress 4, 5 and the response.
        const events = await called(raw, 1, 'burst', { count: 5 });
        assert.deepEqual(progress(events.flatMap(e => (e.message ? [e.message] : []))), [1, 2, 3, 4, 5]);

        const gap = await resume(raw, idOf(events, 2));
        assert.equal(gap.handle.status, 400);
        assert.match(gap.handle.reply.json<Msg>().error?.message ?? '', /too old: events after it on that stream are no longer kept/);

        const rest = await resume(raw, idOf(events, 3));
        assert.equal(rest.handle.status, 200);
        assert.deepEqual(progress(rest.messages), [4, 5]);
        assert.deepEqual(
            rest.messages.filter(m => m.id === 1).map(m => (m.result?.content as { text: string }[])[0]?.text),
            ['burst done'],
        );
    });

    it('holds events up to its size, the newest one even when it alone is larger', async () => {
        const raw = await start({ bytes: 1 });
        const events = await called(raw, 2, 'burst', { count: 3 });
        const refused = await resume(raw, idOf(events, 2));
        assert.equal(refused.handle.status, 400, 'progress 3 is gone: the response took its place');
        const kept = await resume(raw, idOf(events, 3));
        assert.deepEqual(
            kept.messages.map(m => m.id),
            [2],
            'only the response, the newest event',
        );
    });

    it('drops events older than its age, and gives up on a dropped stream not resumed within it', async () => {
        const raw = await start({ ageMs: AGE_MS });
        const events = await called(raw, 3, 'hold', {});
        const priming = events[0]!.id!;
        const progressed = idOf(events, 1);

        // Exactly the age after the close: the request is given up (as a closed connection used to be at once), its error kept.
        await clock.tick(AGE_MS);
        const atAge = await resume(raw, priming);
        assert.deepEqual(progress(atAge.messages), [1], 'an event exactly as old as the age is still kept');
        const [gaveUp] = atAge.messages.filter(m => m.id === 3);
        assert.match(gaveUp?.error?.message ?? '', /closed the HTTP connection/);

        await clock.tick(1);
        const tooOld = await resume(raw, priming);
        assert.equal(tooOld.handle.status, 400, 'the progress is now older than the age');
        const stillKept = await resume(raw, progressed);
        assert.deepEqual(
            stillKept.messages.map(m => m.id),
            [3],
            'the response, newer, is kept',
        );
    });
});
