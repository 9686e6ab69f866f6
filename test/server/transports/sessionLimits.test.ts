/**
 * HTTP sessions per credential, with real processes: at --max-sessions an initialize closes the
 * credential's least recently active quiet session (its running task cancelled, as for any ended
 * session), and with every session busy it is refused in words; --session-rate refuses with 429
 * and Retry-After. Other tokens and the owner are never held to a client's limits. Recovery as the
 * clock moves is test/unit/server/transports/sessionRate.test.ts, on a virtual clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { httpServerPerSuite, secret } from '../../support/helpers.js';
import { INITIALIZE, RawHttp, type HttpReply } from '../../support/rawHttp.js';
import { waitUntil } from '../../support/wait.js';

/** The status message of a task whose session was closed to make room. */
const MADE_ROOM = 'Session closed to make room for a newer session of the same credential (--max-sessions)';

interface ErrorBody {
    id: unknown;
    error: { code: number; message: string; data?: unknown };
}

describe('open sessions per credential (--max-sessions)', () => {
    const [evicting, busy, other, ownerToken] = [secret(), secret(), secret(), secret()];
    const server = httpServerPerSuite(['--token', evicting, '--token', busy, '--token', other, '--owner-token', ownerToken, '--bind', 'session', '--max-sessions', '3']);
    const clients: RawHttp[] = [];
    let owner: RawHttp;

    const client = (token: string) => {
        const made = new RawHttp(server.url, { authorization: `Bearer ${token}` });
        clients.push(made);
        return made;
    };

    before(async () => {
        owner = client(ownerToken);
        await owner.initialize({ name: 'owner' });
    });
    after(() => clients.forEach(made => made.destroy()));

    it('at the cap closes the least recently active quiet session: its running task is cancelled with the reason, the others stay', async () => {
        const [first, second, third] = [client(evicting), client(evicting), client(evicting)];
        for (const made of [first, second, third]) {
            await made.initialize();
        }
        const { taskId } = await first.createTask({ seconds: 60, label: 'made-room' });
        // The first session answered last before these: it is the least recently active.
        await second.call('ping');
        await third.call('ping');

        const fourth = client(evicting);
        await fourth.initialize();
        await server.log.waitFor(new RegExp(`closing session ${first.sessionId!.slice(0, 8)}… to make room: its credential has 3 open \\(--max-sessions\\)`));
        assert.equal((await first.send({ jsonrpc: '2.0', id: 1, method: 'ping' })).status, 404, 'the closed session is gone');
        for (const kept of [second, third, fourth]) {
            assert.deepEqual((await kept.call('ping')).result, {});
        }

        // As for any session that ends: its running task is cancelled with the reason, which the owner sees.
        const seen = await waitUntil(async () => {
            const task = await owner.result('tasks/get', { taskId });
            return task.status === 'cancelled' ? task : undefined;
        }, 'the closed session\'s task to be cancelled');
        assert.equal(seen.statusMessage, MADE_ROOM);
    });

    it('with every session busy refuses an initialize with 429 and words; another token and the owner still get in; a DELETE makes room', async () => {
        const held = [client(busy), client(busy), client(busy)];
        const streams = [];
        for (const made of held) {
            await made.initialize();
            streams.push(await made.openStream(() => undefined));
        }

        const refused: HttpReply = await client(busy).send(INITIALIZE);
        assert.equal(refused.status, 429);
        assert.equal(refused.header('mcp-session-id'), undefined);
        assert.equal(refused.header('retry-after'), undefined, 'waiting alone does not help a full cap');
        assert.deepEqual(refused.json<ErrorBody>(), {
            jsonrpc: '2.0',
            id: 0,
            error: {
                code: -32000,
                message:
                    'Too many open sessions for this token: all 3 (--max-sessions) have a request in flight or an open GET stream, so none could be closed to make room. ' +
                    'End the sessions you no longer need with DELETE (their Mcp-Session-Id), or start the server with a higher --max-sessions.',
                data: { limit: 3, kind: 'sessions' },
            },
        });
        assert.ok(
            held.every(made => server.log.lines.every(line => !line.includes(`closing session ${made.sessionId!.slice(0, 8)}`))),
            'no busy session was closed',
        );

        await client(other).initialize();
        await client(ownerToken).initialize();

        await held[0]!.close();
        await streams[0]!.closed;
        await client(busy).initialize();
        streams.forEach(stream => stream.close());
    });
});

describe('new sessions per minute (--session-rate)', () => {
    const [limited, other, ownerToken] = [secret(), secret(), secret()];
    const server = httpServerPerSuite(['--token', limited, '--token', other, '--owner-token', ownerToken, '--session-rate', '2']);
    const initialize = (token: string) => new RawHttp(server.url, { authorization: `Bearer ${token}` }).send(INITIALIZE);

    it('answers an initialize past the rate with 429, Retry-After and words; another token and the owner are not held to it', async () => {
        assert.equal((await initialize(limited)).status, 200);
        assert.equal((await initialize(limited)).status, 200);
        const refused = await initialize(limited);
        assert.equal(refused.status, 429);
        assert.equal(refused.header('mcp-session-id'), undefined);
        // Two a minute: the next token is at most 30 s away.
        const retryAfter = Number(refused.header('retry-after'));
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 30, `Retry-After ${refused.header('retry-after')}`);
        const { error } = refused.json<ErrorBody>();
        assert.equal(error.code, -32000);
        assert.equal(
            error.message,
            `Too many new sessions for this token: at most 2 a minute (--session-rate). Try again in ${retryAfter} s, ` +
                'and keep using a session (its Mcp-Session-Id) rather than initializing again for each request.',
        );

        for (const token of [other, other, ownerToken, ownerToken, ownerToken]) {
            assert.equal((await initialize(token)).status, 200);
        }
    });
});
