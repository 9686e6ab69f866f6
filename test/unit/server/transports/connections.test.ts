/**
 * Connections that cannot be starved: a real HTTP endpoint with real sockets, its connection
 * timers on a virtual clock. Peers that never authenticate are displaced at the cap and cut after
 * the handshake time; a body stalled or trickling is cut once it is not whole within the body
 * time; one credential's bodies in progress are held to half the cap, so another token and the
 * owner still get in. Nothing here measures time (docs/RELIABILITY.md has the measured lock-out
 * figure).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTasksServer, silentLogger, type TasksServer } from '../../../../server/src/index.js';
import { HttpTransportServer } from '../../../../server/src/transports/http.js';
import { ManualClock } from '../../../support/manualClock.js';
import { waitUntil } from '../../../support/wait.js';
import { exchange, INITIALIZE } from '../../../support/rawHttp.js';

const CAP = 8;
const HANDSHAKE_MS = 1000;
const BODY_MS = 2000;
/** The guard sweeps every quarter of the shorter of its two times. */
const SWEEP_MS = HANDSHAKE_MS / 4;
const TOKEN = 'connections-test-token';
const OTHER_TOKEN = 'connections-test-other-token';
const OWNER_TOKEN = 'connections-test-owner-token';

/** A POST from a raw socket whose body (an initialize) starts with one byte and waits for finish(). */
interface SlowBody {
    socket: Socket;
    closed: Promise<unknown>;
    /** What the server answered so far. */
    answer(): string;
    /** Sends the rest of the body. */
    finish(): void;
}

const BODY = JSON.stringify(INITIALIZE);

describe('connections without a credential', () => {
    const clock = new ManualClock();
    let core: TasksServer;
    let http: HttpTransportServer;
    let url: string;

    before(async () => {
        core = createTasksServer({ logger: silentLogger });
        http = new HttpTransportServer(core, {
            host: '127.0.0.1',
            port: 0,
            token: TOKEN,
            tokens: [OTHER_TOKEN],
            ownerToken: OWNER_TOKEN,
            bodyLimitBytes: 1024 * 1024,
            sessionIdleMs: 60_000,
            maxConnections: CAP,
            connectionLimits: { handshakeMs: HANDSHAKE_MS, bodyMs: BODY_MS },
            clock,
        });
        await http.listen();
        url = `http://127.0.0.1:${http.port}/mcp`;
        // Watches (never drives) what the server reads: each request, and the body bytes that reached it.
        http.server.on('request', (req: IncomingMessage) => {
            requests.push(req);
            received.set(req, 0);
            req.on('data', (chunk: Buffer) => received.set(req, received.get(req)! + chunk.length));
        });
    });
    const requests: IncomingMessage[] = [];
    const received = new Map<IncomingMessage, number>();
    after(async () => {
        await core.close();
        const closing = http.close();
        await clock.tick(5000);
        await closing;
    });

    /** Opens `count` connections that send nothing, and tracks which have been closed. */
    async function idlePeers(count: number): Promise<{ sockets: Socket[]; closed: Set<Socket> }> {
        const closed = new Set<Socket>();
        const sockets = await Promise.all(
            Array.from({ length: count }, async () => {
                const socket = connect(http.port, '127.0.0.1');
                socket.on('error', () => undefined);
                socket.on('close', () => closed.add(socket));
                await once(socket, 'connect');
                return socket;
            }),
        );
        await waitUntil(() => http.connections >= count, 'the server to accept every peer');
        return { sockets, closed };
    }

    const initialize = (token = TOKEN) =>
        exchange(url, { headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(INITIALIZE) });

    /** Starts a POST whose body never ends, and waits until the server has its headers (and is reading, or has refused, its body). */
    async function slowBody(token: string): Promise<SlowBody> {
        const socket = connect(http.port, '127.0.0.1');
        socket.on('error', () => undefined);
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        const closed = once(socket, 'close');
        await once(socket, 'connect');
        const seen = requests.length;
        socket.write(
            `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${http.port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nAccept: application/json\r\n` +
                `Content-Length: ${BODY.length}\r\n\r\n${BODY[0]}`,
        );
        await waitUntil(() => requests.length > seen || undefined, 'the server to take the request');
        return { socket, closed, answer: () => text, finish: () => socket.write(BODY.slice(1)) };
    }

    it("lets a client in past the cap's worth of silent peers, displacing only the oldest", async () => {
        const { sockets, closed } = await idlePeers(CAP);
        const reply = await initialize();
        assert.equal(reply.status, 200);
        await waitUntil(() => closed.size >= 1 || undefined, 'the oldest silent peer to be displaced');
        assert.deepEqual([...closed], [sockets[0]], 'only the oldest silent peer made room');
        assert.ok(http.connections <= CAP);
        // The handshake time passes: every silent peer left is cut.
        await clock.tick(HANDSHAKE_MS + HANDSHAKE_MS / 4);
        await waitUntil(() => closed.size === CAP || undefined, 'every silent peer to be cut');
        assert.equal((await initialize()).status, 200);
    });

    it('cuts a body that stops arriving, and keeps an authenticated keep-alive connection past the handshake time', async () => {
        const slow = await slowBody(TOKEN);
        const req = requests[requests.length - 1]!;
        // Authenticated (the headers passed), so the handshake sweep leaves it; the body time cuts it.
        await clock.tick(HANDSHAKE_MS + SWEEP_MS);
        assert.equal(req.socket.destroyed, false, 'an authenticated connection outlives the handshake time');
        await clock.tick(BODY_MS);
        assert.equal(req.socket.destroyed, true, 'a stalled body is cut after the body time');
        await slow.closed;
    });

    it('cuts a body that keeps trickling once it is not whole within the body time', async () => {
        const slow = await slowBody(TOKEN);
        const req = requests[requests.length - 1]!;
        // A byte every fifth of the body time: never idle, and never done.
        for (let sent = 0; sent < 4; sent++) {
            const before = received.get(req)!;
            slow.socket.write('1');
            await waitUntil(() => received.get(req)! > before || undefined, 'the server to receive the byte');
            await clock.tick(BODY_MS / 5);
        }
        await clock.tick(BODY_MS / 5 - SWEEP_MS);
        assert.equal(req.socket.destroyed, false, 'a body is not cut before the body time');
        await clock.tick(2 * SWEEP_MS);
        assert.equal(req.socket.destroyed, true, 'a body still arriving after the body time is cut');
        await slow.closed;
    });

    it("holds one credential to half the cap's connections with bodies arriving; another token and the owner still get in", async () => {
        const limit = CAP / 2;
        const held = [];
        for (let i = 0; i < limit; i++) {
            held.push(await slowBody(TOKEN));
        }
        const refused = await slowBody(TOKEN);
        await refused.closed;
        assert.match(refused.answer(), /^HTTP\/1\.1 429 /);
        assert.match(refused.answer(), /\r\nconnection: close\r\n/i, 'the refused request is not read and its connection closes');
        assert.match(refused.answer(), new RegExp(`Too many requests of this credential are still sending their bodies \\(limit ${limit}, --max-pending-bodies\\)`));
        const same = await initialize(TOKEN);
        assert.equal(same.status, 429, 'the same token is held to its limit');

        assert.equal((await initialize(OTHER_TOKEN)).status, 200, 'another token gets in');
        assert.equal((await initialize(OWNER_TOKEN)).status, 200, 'the owner gets in');
        assert.ok(held.every(slow => !slow.socket.destroyed), 'the bodies in progress are still held');

        // Once the body time cuts them, the credential may send bodies again.
        await clock.tick(BODY_MS + SWEEP_MS);
        await Promise.all(held.map(slow => slow.closed));
        assert.equal((await initialize(TOKEN)).status, 200);
    });

    it("never counts the owner's bodies", async () => {
        const owned = [];
        for (let i = 0; i <= CAP / 2; i++) {
            owned.push(await slowBody(OWNER_TOKEN));
        }
        // One more than a client may send at once: each is read to its end and answered.
        owned.forEach(slow => slow.finish());
        for (const slow of owned) {
            await waitUntil(() => slow.answer().includes('\r\n\r\n') || undefined, "the owner's answer");
            assert.match(slow.answer(), /^HTTP\/1\.1 200 /);
            slow.socket.destroy();
        }
    });
});
