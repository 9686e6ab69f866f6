import type { ServerResponse } from 'node:http';
import type { Clock, ClockTimer } from '../clock.js';
import { ErrorCodes } from '../rpc/errors.js';
import type { JsonRpcMessage, RequestId } from '../rpc/messages.js';
import type { Transport } from '../rpc/transport.js';
import { replyError } from './httpReply.js';

function frame(message: JsonRpcMessage): string {
    return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' } as const;

function writable(res: ServerResponse): boolean {
    return !res.writableEnded && !res.destroyed;
}

/**
 * The session's standalone stream, opened by GET. Frames sent in one turn of the event loop
 * (a burst of progress from many tasks) are written together: one chunk, one system call.
 */
export class SseStream implements Transport {
    onclose?: () => void;
    private readonly keepAlive: ClockTimer;
    private pending = '';

    constructor(
        private readonly res: ServerResponse,
        keepAliveMs: number,
        private readonly clock: Clock,
    ) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' });
        res.flushHeaders();
        // A comment line now and then keeps proxies from closing the stream and reveals dead peers.
        this.keepAlive = clock.setInterval(() => writable(res) && this.write(': keep-alive\n\n'), keepAliveMs, true);
        res.once('close', () => {
            clock.clearInterval(this.keepAlive);
            this.onclose?.();
        });
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

    close(): void {
        this.clock.clearInterval(this.keepAlive);
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

/** The HTTP session a POST belongs to, as its response stream sees it. */
export interface ExchangeOwner {
    /** The Mcp-Session-Id the response names; undefined until a successful initialize establishes the session. */
    readonly sessionId: string | undefined;
    /** Called just before `response` goes out (the session is active; what its GET stream holds goes first). */
    responding(response: JsonRpcMessage): void;
}

/**
 * The response stream of one POSTed request. It answers with plain JSON unless something related
 * to the request has to go out first (progress, an input request); then it upgrades to an SSE
 * stream. The request's own response ends it.
 */
export class PostExchange implements Transport {
    onclose?: () => void;
    private streaming = false;

    constructor(
        private readonly res: ServerResponse,
        private readonly owner: ExchangeOwner,
        private readonly requestId: RequestId,
        private readonly acceptsSse: boolean,
        private readonly acceptsJson = true,
    ) {
        // on, not once: 'close' comes once anyway, and once() wraps the listener on every request.
        res.on('close', this.closed);
    }

    send(message: JsonRpcMessage): boolean {
        if (!('method' in message) && message.id === this.requestId) {
            this.finish(message);
            return true;
        }
        if (!writable(this.res) || !this.acceptsSse) {
            return false;
        }
        if (!this.streaming) {
            this.streaming = true;
            this.res.writeHead(200, { 'mcp-session-id': this.owner.sessionId ?? '', 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' });
        }
        this.res.write(frame(message));
        return true;
    }

    close(): void {
        if (writable(this.res)) {
            this.res.end();
        }
    }

    private finish(response: JsonRpcMessage): void {
        this.owner.responding(response);
        if (!writable(this.res)) {
            return;
        }
        let text: string;
        try {
            text = this.streaming || !this.acceptsJson ? frame(response) : JSON.stringify(response);
        } catch (err) {
            replyError(this.res, 500, ErrorCodes.InternalError, 'Internal error');
            throw err;
        }
        if (this.streaming || !this.acceptsJson) {
            if (!this.streaming) {
                const id = this.owner.sessionId;
                this.res.writeHead(200, id === undefined ? SSE_HEADERS : { 'mcp-session-id': id, ...SSE_HEADERS });
            }
            this.res.end(text);
            return;
        }
        const id = this.owner.sessionId;
        const length = String(Buffer.byteLength(text));
        this.res.writeHead(200, id === undefined ? { 'content-type': 'application/json', 'content-length': length } : { 'mcp-session-id': id, 'content-type': 'application/json', 'content-length': length });
        this.res.end(text);
    }

    private readonly closed = (): void => {
        if (!this.res.writableEnded) {
            this.onclose?.();
        }
    };
}
