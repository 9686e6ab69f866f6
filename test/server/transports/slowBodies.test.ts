/**
 * A client with a valid token that trickles request bodies, with a real process: it holds at most
 * half of --max-connections (the default --max-pending-bodies, 32, is cut to that), its further
 * requests are refused unread with words, and another client and the owner are served meanwhile.
 * The body time (10 s) is test/unit/server/transports/connections.test.ts, on a virtual clock.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { httpServerPerSuite, secret } from '../../support/helpers.js';
import { RawHttp } from '../../support/rawHttp.js';
import { waitUntil } from '../../support/wait.js';

const MAX_CONNECTIONS = 16;
/** Half the connections, the most one credential's unfinished bodies may hold. */
const HELD = MAX_CONNECTIONS / 2;
const TRIED = HELD + 4;

/** A raw POST whose headers promise 500 bytes and which sends one; what came back, and whether it closed. */
interface Trickle {
    socket: Socket;
    answer: string;
    closed: boolean;
}

describe('slow bodies of one client', () => {
    const [slow, other, ownerToken] = [secret(), secret(), secret()];
    const server = httpServerPerSuite(['--token', slow, '--token', other, '--owner-token', ownerToken, '--max-connections', String(MAX_CONNECTIONS)]);
    const trickles: Trickle[] = [];
    after(() => trickles.forEach(trickle => trickle.socket.destroy()));

    function trickle(): Trickle {
        const socket = connect(server.port, '127.0.0.1');
        const made: Trickle = { socket, answer: '', closed: false };
        socket.on('error', () => undefined);
        socket.on('data', (chunk: Buffer) => (made.answer += chunk.toString('utf8')));
        socket.on('close', () => (made.closed = true));
        socket.on('connect', () =>
            socket.write(
                `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${slow}\r\nContent-Type: application/json\r\n` +
                    'Accept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{',
            ),
        );
        trickles.push(made);
        return made;
    }

    it('holds half the connections at most; its further requests are refused in words, and another client and the owner are served', async () => {
        for (let i = 0; i < TRIED; i++) {
            trickle();
        }
        const refused = await waitUntil(() => {
            const closed = trickles.filter(made => made.closed);
            return closed.length >= TRIED - HELD ? closed : undefined;
        }, `${TRIED - HELD} of the trickling requests to be refused`);
        for (const made of refused) {
            assert.match(made.answer, /^HTTP\/1\.1 429 /);
            assert.match(made.answer, new RegExp(`Too many requests of this credential are still sending their bodies \\(limit ${HELD}, --max-pending-bodies\\): this one was not read and its connection closes`));
        }

        // Served while the trickles are held: another token, the owner, and a call of each.
        for (const token of [other, ownerToken]) {
            const served = new RawHttp(server.url, { authorization: `Bearer ${token}` });
            await served.initialize();
            assert.deepEqual((await served.result('tools/call', { name: 'greet', arguments: { name: 'still served' } })).content, [{ type: 'text', text: 'Hello, still served!' }]);
            served.destroy();
        }
        // The client itself is held to its limit, on a fresh connection too.
        const again = await new RawHttp(server.url, { authorization: `Bearer ${slow}` }).send({ jsonrpc: '2.0', id: 0, method: 'ping' });
        assert.equal(again.status, 429);
        assert.equal(trickles.filter(made => !made.closed).length, HELD, 'the held bodies are still arriving');
    });
});
