/**
 * SSE streams under a reader that stops reading: a real node:http server and a real socket that
 * never reads. What the server holds stays bounded (the outbox's limit plus the chunk the socket
 * is writing); stale progress goes first, and a stream that still does not drain is cut.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { systemClock } from '../../../../server/src/util/clock.js';
import type { JsonRpcMessage } from '../../../../server/src/rpc/messages.js';
import { SseStream } from '../../../../server/src/transports/sse.js';

const LIMIT = 256 * 1024;

function status(n: number, size: number): JsonRpcMessage {
    return { jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId: `t${n}`, status: 'working', statusMessage: 'x'.repeat(size) } };
}

function progress(token: string, n: number): JsonRpcMessage {
    return { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: n, total: 100_000 } };
}

describe('an SSE stream whose reader stalls', () => {
    let server: Server;
    let socket: Socket;
    let res: ServerResponse;
    let stream: SseStream;

    beforeEach(async () => {
        const opened = new Promise<ServerResponse>(resolve => {
            server = createServer((_req, response) => resolve(response));
        });
        server.listen(0, '127.0.0.1');
        await once(server, 'listening');
        socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
        socket.write('GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n');
        // The reader never reads: the kernel's buffers fill, then the server's.
        socket.pause();
        res = await opened;
        stream = new SseStream(res, 60_000, systemClock, undefined, LIMIT);
    });

    afterEach(async () => {
        socket.destroy();
        server.closeAllConnections();
        server.close();
    });

    /**
     * Sends a frame and hands it to the socket at once (the flush the stream would run on the next
     * turn): a write goes to the kernel while its buffers have room, so they fill first, then the
     * server's, without the test waiting for anything.
     */
    function sendNow(message: JsonRpcMessage): void {
        stream.send(message);
        stream.flush();
    }

    /** Sends large status frames until the socket stops taking them. */
    function congest(): void {
        for (let i = 0; i < 2000 && !((stream.queued ?? 0) > 0); i++) {
            sendNow(status(i, 64 * 1024));
        }
        assert.ok(stream.queued > 0, 'the socket stopped taking frames');
    }

    it('holds at most its limit, then cuts a stream that never drains', async () => {
        let held = 0;
        for (let i = 0; i < 1500 && stream.open; i++) {
            sendNow(status(i, 32 * 1024));
            held = Math.max(held, res.writableLength + (stream.queued ?? 0));
        }
        assert.ok(held <= 2 * LIMIT + 64 * 1024, `held ${held} bytes for a reader that never reads`);
        assert.equal(stream.open, false, 'the stream was cut');
    });

    it('keeps only the latest progress per token while it waits, and every status frame', async () => {
        congest();
        const before = stream.queued;
        for (let n = 1; n <= 5000; n++) {
            assert.ok(stream.send(progress('tok', n)));
            assert.ok(stream.send(progress('other', n)));
        }
        stream.send(status(-1, 10));
        assert.ok(stream.queued - before < 2048, `queued ${stream.queued - before} more characters for 10,000 progress notifications`);
        assert.ok(stream.open);
        stream.close();
        socket.resume();
        const chunks: Buffer[] = [];
        socket.on('data', chunk => chunks.push(chunk));
        await once(socket, 'end');
        const frames = [...Buffer.concat(chunks).toString('utf8').matchAll(/data: (.*)\n\n/g)].map(m => JSON.parse(m[1]!) as JsonRpcMessage & { params: Record<string, unknown> });
        const progressFrames = frames.filter(f => 'method' in f && f.method === 'notifications/progress');
        assert.deepEqual(
            progressFrames.map(f => [f.params.progressToken, f.params.progress]),
            [
                ['tok', 5000],
                ['other', 5000],
            ],
        );
        assert.equal(frames.at(-1)!.params.taskId, 't-1', 'status frames all arrive, in order, after the progress they followed');
    });
});
