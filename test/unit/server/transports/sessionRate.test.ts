/**
 * The limits on opening HTTP sessions, on a real endpoint with real sockets and its clock virtual:
 * the rate refuses with 429, Retry-After and words, and admits again exactly when the clock has
 * refilled a token; each credential has its own limits, callers without a token share one (rate
 * and cap alike), and the owner has none; a refusal by the cap takes nothing from the rate. The cap with real
 * processes and tasks is test/server/transports/sessionLimits.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTasksServer, silentLogger, type TasksServer } from '../../../../server/src/index.js';
import { HttpTransportServer, type HttpOptions } from '../../../../server/src/transports/http.js';
import { ManualClock } from '../../../support/manualClock.js';
import { INITIALIZE, RawHttp, type HttpReply } from '../../../support/rawHttp.js';
import { waitUntil } from '../../../support/wait.js';

const TOKEN = 'session-rate-token';
const OTHER_TOKEN = 'session-rate-other-token';
const OWNER_TOKEN = 'session-rate-owner-token';
/** Three a minute: one every 20 s. */
const PER_MINUTE = 3;

/** An endpoint on `clock` for the enclosing describe. */
function endpoint(clock: ManualClock, options: Partial<HttpOptions>): { url: () => string; http: () => HttpTransportServer } {
    let core: TasksServer;
    let http: HttpTransportServer;
    before(async () => {
        core = createTasksServer({ logger: silentLogger });
        http = new HttpTransportServer(core, { host: '127.0.0.1', port: 0, bodyLimitBytes: 1024 * 1024, sessionIdleMs: 60 * 60_000, clock, ...options });
        await http.listen();
    });
    after(async () => {
        await core.close();
        const closing = http.close();
        await clock.tick(5000);
        await closing;
    });
    return { url: () => `http://127.0.0.1:${http.port}/mcp`, http: () => http };
}

function clientOf(url: string, token?: string): RawHttp {
    return new RawHttp(url, token ? { authorization: `Bearer ${token}` } : {});
}

/** An initialize that may be refused: the whole answer. */
function initialize(url: string, token?: string): Promise<HttpReply> {
    return clientOf(url, token).send(INITIALIZE);
}

describe('the rate of new sessions per credential', () => {
    const clock = new ManualClock();
    const { url } = endpoint(clock, { token: TOKEN, tokens: [OTHER_TOKEN], ownerToken: OWNER_TOKEN, sessionsPerMinute: PER_MINUTE });

    it('refuses one more than the minute allows with 429, Retry-After and words, and admits it once the clock has refilled a token', async () => {
        for (let i = 0; i < PER_MINUTE; i++) {
            assert.equal((await initialize(url(), TOKEN)).status, 200);
        }
        const refused = await initialize(url(), TOKEN);
        assert.equal(refused.status, 429);
        assert.equal(refused.header('retry-after'), '20');
        assert.equal(refused.header('mcp-session-id'), undefined, 'no session');
        assert.deepEqual(refused.json(), {
            jsonrpc: '2.0',
            id: 0,
            error: {
                code: -32000,
                message:
                    'Too many new sessions for this token: at most 3 a minute (--session-rate). ' +
                    'Try again in 20 s, and keep using a session (its Mcp-Session-Id) rather than initializing again for each request.',
                data: { limit: 3, kind: 'sessionRate' },
            },
        });

        await clock.tick(19_000);
        const early = await initialize(url(), TOKEN);
        assert.equal(early.status, 429, 'a second before the token');
        assert.equal(early.header('retry-after'), '1');
        await clock.tick(1000);
        assert.equal((await initialize(url(), TOKEN)).status, 200, 'the refilled token');
        assert.equal((await initialize(url(), TOKEN)).status, 429, 'and only that one');
    });

    it('gives another token its own allowance and never limits the owner', async () => {
        for (let i = 0; i < PER_MINUTE; i++) {
            assert.equal((await initialize(url(), OTHER_TOKEN)).status, 200);
        }
        assert.equal((await initialize(url(), OTHER_TOKEN)).status, 429);
        for (let i = 0; i < 4 * PER_MINUTE; i++) {
            assert.equal((await initialize(url(), OWNER_TOKEN)).status, 200, `the owner's session ${i + 1}`);
        }
    });
});

describe('the rate of new sessions without a token', () => {
    const clock = new ManualClock();
    const { url } = endpoint(clock, { sessionsPerMinute: PER_MINUTE });

    it('counts every caller without a token as one, and says so', async () => {
        for (let i = 0; i < PER_MINUTE; i++) {
            assert.equal((await initialize(url())).status, 200, `caller ${i + 1}`);
        }
        const refused = await initialize(url());
        assert.equal(refused.status, 429);
        assert.match(refused.json<{ error: { message: string } }>().error.message, /^Too many new sessions for callers without a token \(they share one limit; give each client its own --token\): at most 3 a minute/);
    });
});

describe('open sessions without a token', () => {
    const clock = new ManualClock();
    const { url } = endpoint(clock, { maxSessions: 2 });

    it("counts every caller without a token as one: one's initialize closes another's quiet session, and is refused in words when all are busy", async () => {
        const [quiet, second, third] = [clientOf(url()), clientOf(url()), clientOf(url())];
        await quiet.initialize();
        await second.initialize();
        await third.initialize();
        assert.equal((await quiet.send({ jsonrpc: '2.0', id: 1, method: 'ping' })).status, 404, "another caller's initialize closed it");

        const streams = [await second.openStream(() => undefined), await third.openStream(() => undefined)];
        const refused = await initialize(url());
        assert.equal(refused.status, 429);
        assert.match(
            refused.json<{ error: { message: string } }>().error.message,
            /^Too many open sessions for callers without a token \(they share one limit; give each client its own --token\): all 2 \(--max-sessions\)/,
        );
        streams.forEach(stream => stream.close());
        [quiet, second, third].forEach(made => made.destroy());
    });
});

describe('the cap and the rate together', () => {
    const clock = new ManualClock();
    const { url, http } = endpoint(clock, { token: TOKEN, maxSessions: 1, sessionsPerMinute: 2 });

    it('takes nothing from the rate for an initialize the cap refused', async () => {
        const first = clientOf(url(), TOKEN);
        await first.initialize();
        const stream = await first.openStream(() => undefined);
        for (let i = 0; i < 3; i++) {
            const refused = await initialize(url(), TOKEN);
            assert.equal(refused.status, 429);
            assert.equal(refused.header('retry-after'), undefined, 'waiting does not help a full cap');
            assert.deepEqual(refused.json<{ error: { data: unknown } }>().error.data, { limit: 1, kind: 'sessions' });
        }
        // The stream closes: the session is quiet, so the next initialize replaces it, with the second token of the minute.
        stream.close();
        await waitUntil(() => !http().sessions.get(first.sessionId!)?.stream?.open, 'the server to see the stream close');
        assert.equal((await initialize(url(), TOKEN)).status, 200);
        assert.equal(http().sessions.get(first.sessionId!), undefined, 'the quiet session made room');
        assert.equal((await initialize(url(), TOKEN)).status, 429, 'the minute allowed two');
        first.destroy();
    });
});
