// HTTP for the owner connection, with a check on every new connection: the request goes out only
// once the socket is connected AND the server's process still runs. The token travels in every
// request; when the server dies, another local user can bind its port, and a request the client
// had queued (fetch opens a new connection for it) would reach them. Checked after the connection
// is made, the peer of a socket whose process still runs can only be that process: its port was not
// free. fetch's own pool has no such hook, so this is node:http with an agent of our own, giving
// back a standard Response so the transport reads it as before.
import { Agent, request, type ClientRequest, type ClientRequestArgs, type IncomingMessage } from 'node:http';
import { connect, type NetConnectOpts } from 'node:net';
import { Readable, type Duplex } from 'node:stream';

/** Statuses whose Response has no body (the Response constructor refuses one). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

export class GuardedAgent extends Agent {
    constructor(
        private readonly peerAlive: () => boolean,
        private readonly refusal: string,
    ) {
        super({ keepAlive: true });
    }

    // node:http hands the socket to the request only through `callback`, once we call it.
    override createConnection(options: ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
        const socket = connect(options as NetConnectOpts);
        const fail = (err: Error): void => {
            socket.destroy();
            callback?.(err, socket);
        };
        socket.once('error', fail);
        socket.once('connect', () => {
            socket.off('error', fail);
            if (this.peerAlive()) {
                callback?.(null, socket);
            } else {
                fail(new Error(this.refusal));
            }
        });
        return undefined;
    }
}

export interface GuardedInit {
    method: 'GET' | 'POST';
    headers: Record<string, string>;
    body?: string;
    signal: AbortSignal;
}

/** One request through `agent`; resolves with the response as fetch would give it (no redirect followed). */
export function guardedFetch(url: string, init: GuardedInit, agent: Agent): Promise<Response> {
    return new Promise<Response>((resolve, reject) => {
        let req: ClientRequest;
        try {
            req = request(url, { method: init.method, headers: init.headers, agent, signal: init.signal });
        } catch (err) {
            reject(err as Error);
            return;
        }
        req.once('error', reject);
        req.once('response', (res: IncomingMessage) => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
                if (value !== undefined) {
                    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
                }
            }
            const status = res.statusCode ?? 500;
            if (NO_BODY.has(status)) {
                res.resume();
            }
            const body = NO_BODY.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
            resolve(new Response(body, { status, statusText: res.statusMessage ?? '', headers }));
        });
        req.end(init.body);
    });
}
