/**
 * Connections that cannot be starved: a real HTTP endpoint with real sockets, its connection
 * timers on a virtual clock. Peers that never authenticate are displaced at the cap and cut after
 * the handshake time; a stalled body is cut after the body-idle time. Nothing here measures time
 * (docs/RELIABILITY.md has the measured lock-out figure).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTasksServer, silentLogger, type TasksServer } from '../../../../server/src/index.js';
import { HttpTransportServer } from '../../../../server/src/transports/http.js';
import { ManualClock } from '../../../support/manualClock.js';
import { waitUntil } from '../../../support/wait.js';
import { exchange, INITIALIZE } from '../../../support/rawHttp.js';

const CAP = 8;
const HANDSHAKE_MS = 1000;
const BODY_IDLE_MS = 2000;
const TOKEN = 'connections-test-token';

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
            bodyLimitBytes: 1024 * 1024,
            sessionIdleMs: 60_000,
            maxConnections: CAP,
            connectionLimits: { handshakeMs: HANDSHAKE_MS, bodyIdleMs: BODY_IDLE_MS },
            clock,
        });
        await http.listen();
        url = `http://127.0.0.1:${http.port}/mcp`;
    });
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

    const initialize = () =>
        exchange(url, { headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(INITIALIZE) });

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
        const socket = connect(http.port, '127.0.0.1');
        await once(socket, 'connect');
        const closed = once(socket, 'close');
        socket.on('data', () => undefined);
        socket.write(
            `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${http.port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: 500\r\n\r\n{"jsonrpc":`,
        );
        await waitUntil(() => http.connections >= 1 || undefined, 'the connection');
        // Authenticated (the headers passed), so the handshake sweep leaves it; the body-idle time cuts it.
        await clock.tick(HANDSHAKE_MS + HANDSHAKE_MS / 4);
        assert.equal(socket.destroyed, false, 'an authenticated connection outlives the handshake time');
        await clock.tick(BODY_IDLE_MS);
        await closed;
    });
});
