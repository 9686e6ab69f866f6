/**
 * The proxy every host is pointed at (HTTP_PROXY, HTTPS_PROXY; NO_PROXY lets loopback through): on
 * 127.0.0.1, it refuses every request and tunnel, and notes where each was going, so a run shows
 * what a host tried to reach beyond loopback (telemetry, update checks, model lists) instead of
 * that host waiting on a network the machine may not have. A host that ignores the proxy variables
 * is not caught by this.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RefusingProxy {
    url: string;
    /** `host:port` of each tunnel asked for, or the URL of each plain request, in order. */
    attempts: string[];
    close(): Promise<void>;
}

export async function startRefusingProxy(): Promise<RefusingProxy> {
    const attempts: string[] = [];
    const server = createServer((req, res) => {
        attempts.push(req.url ?? '?');
        res.writeHead(403, { 'content-type': 'text/plain' }).end('host matrix: no traffic beyond loopback\n');
    });
    server.on('connect', (req, socket) => {
        attempts.push(req.url ?? '?');
        // Dropped like a refused connection: a 403 made some hosts retry for seconds.
        socket.destroy();
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        attempts,
        close: () =>
            new Promise(resolve => {
                server.closeAllConnections();
                server.close(() => resolve());
            }),
    };
}
