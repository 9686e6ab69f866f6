import type { ServerResponse } from 'node:http';
import type { JsonRpcMessage, JsonRpcResponse } from '../rpc/messages.js';
import type { Outlet } from '../rpc/session.js';

function frame(message: JsonRpcMessage): string {
    return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

function writable(res: ServerResponse): boolean {
    return !res.writableEnded && !res.destroyed;
}

/**
 * The session's standalone stream, opened by GET. Frames sent in one turn of the event loop
 * (a burst of progress from many tasks) are written together: one chunk, one system call.
 */
export class SseStream implements Outlet {
    private readonly keepAlive: NodeJS.Timeout;
    private pending = '';

    constructor(
        private readonly res: ServerResponse,
        keepAliveMs: number,
    ) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' });
        res.flushHeaders();
        // A comment line now and then keeps proxies from closing the stream and reveals dead peers.
        this.keepAlive = setInterval(() => writable(res) && this.write(': keep-alive\n\n'), keepAliveMs);
        this.keepAlive.unref();
        res.once('close', () => clearInterval(this.keepAlive));
    }

    get open(): boolean {
        return writable(this.res);
    }

    send(message: JsonRpcMessage): boolean {
        if (!writable(this.res)) {
            return false;
        }
        this.write(frame(message));
        return true;
    }

    end(): void {
        clearInterval(this.keepAlive);
        if (writable(this.res)) {
            this.flush();
            this.res.end();
        }
    }

    private write(text: string): void {
        if (this.pending === '') {
            setImmediate(this.flush);
        }
        this.pending += text;
    }

    /** Writes what is pending now; the transport calls it before a response that must follow it. */
    readonly flush = (): void => {
        const text = this.pending;
        this.pending = '';
        if (text !== '' && writable(this.res)) {
            this.res.write(text);
        }
    };
}

/**
 * The response to one POSTed request. It answers with plain JSON unless something related to the
 * request has to go out first (progress, an input request); then it upgrades to an SSE stream.
 */
export class PostExchange implements Outlet {
    private streaming = false;

    constructor(
        private readonly res: ServerResponse,
        private readonly sessionId: string,
        private readonly acceptsSse: boolean,
        private readonly acceptsJson = true,
    ) {}

    send(message: JsonRpcMessage): boolean {
        if (!writable(this.res) || !this.acceptsSse) {
            return false;
        }
        if (!this.streaming) {
            this.streaming = true;
            this.res.writeHead(200, { 'mcp-session-id': this.sessionId, 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' });
        }
        this.res.write(frame(message));
        return true;
    }

    finish(response: JsonRpcResponse): void {
        if (!writable(this.res)) {
            return;
        }
        if (this.streaming || !this.acceptsJson) {
            if (!this.streaming) {
                this.res.writeHead(200, { 'mcp-session-id': this.sessionId, 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' });
            }
            this.res.end(frame(response));
            return;
        }
        const body = JSON.stringify(response);
        this.res.writeHead(200, { 'mcp-session-id': this.sessionId, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
        this.res.end(body);
    }
}
