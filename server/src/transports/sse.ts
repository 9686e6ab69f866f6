import type { ServerResponse } from 'node:http';
import type { Clock, ClockTimer } from '../util/clock.js';
import { ErrorCodes } from '../rpc/errors.js';
import type { JsonRpcMessage, RequestId } from '../rpc/messages.js';
import type { Transport } from '../rpc/transport.js';
import { replyError } from './httpReply.js';
import { frame, SseOutbox } from './sseOutbox.js';

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' } as const;

function writable(res: ServerResponse): boolean {
    return !res.writableEnded && !res.destroyed;
}

/**
 * The session's standalone stream, opened by GET. Frames sent in one turn of the event loop
 * (a burst of progress from many tasks) are written together: one chunk, one system call. A
 * reader that does not keep up holds at most the outbox's limit (see SseOutbox).
 */
export class SseStream implements Transport {
    onclose?: () => void;
    private readonly keepAlive: ClockTimer;
    private readonly outbox: SseOutbox;
    private scheduled = false;

    constructor(
        private readonly res: ServerResponse,
        keepAliveMs: number,
        private readonly clock: Clock,
        queueLimit?: number,
    ) {
        this.outbox = new SseOutbox(res, queueLimit);
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' });
        res.flushHeaders();
        // A comment line now and then keeps proxies from closing the stream and reveals dead peers
        // (not needed while frames wait: they are the traffic).
        this.keepAlive = clock.setInterval(() => writable(res) && this.outbox.empty && res.write(': keep-alive\n\n'), keepAliveMs, true);
        res.once('close', () => {
            clock.clearInterval(this.keepAlive);
            this.onclose?.();
        });
    }

    get open(): boolean {
        return writable(this.res);
    }

    /** Characters queued for a reader that has not taken them yet. */
    get queued(): number {
        return this.outbox.queued;
    }

    send(message: JsonRpcMessage): boolean {
        if (!writable(this.res) || !this.outbox.push(message)) {
            return false;
        }
        if (!this.scheduled) {
            this.scheduled = true;
            setImmediate(this.flush);
        }
        return true;
    }

    close(): void {
        this.clock.clearInterval(this.keepAlive);
        if (writable(this.res)) {
            this.outbox.end();
        }
    }

    /** Writes what is pending now; the transport calls it before a response that must follow it. */
    readonly flush = (): void => {
        this.scheduled = false;
        if (writable(this.res)) {
            this.outbox.flush();
        }
    };
}

/** The HTTP session a POST belongs to, as its response stream sees it. */
export interface ExchangeOwner {
    /** The Mcp-Session-Id the response names; undefined until a successful initialize establishes the session. */
    readonly sessionId: string | undefined;
    /** Called just before `response` goes out (the session is active; what its GET stream holds goes first). */
    responding(response: JsonRpcMessage): void;
    /** The HTTP status of a plain JSON answer; 200 when absent (2026-07-28 answers some errors with 400 or 404). */
    statusOf?(response: JsonRpcMessage): number;
}

/** 2026-07-28 over HTTP: which errors are the request's fault (400) and which name a method this revision lacks (404). */
const STATUS_BY_CODE = new Map<number, number>([
    [ErrorCodes.MethodNotFound, 404],
    [ErrorCodes.InvalidRequest, 400],
    [ErrorCodes.InvalidParams, 400],
    [ErrorCodes.HeaderMismatch, 400],
    [ErrorCodes.MissingRequiredClientCapability, 400],
    [ErrorCodes.UnsupportedProtocolVersion, 400],
]);

/** A sessionless (2026-07-28) request's response stream: no Mcp-Session-Id, and an error's own status. */
export const NO_SESSION: ExchangeOwner = {
    sessionId: undefined,
    responding: () => undefined,
    statusOf: response => ('error' in response && response.error ? (STATUS_BY_CODE.get(response.error.code) ?? 200) : 200),
};

/**
 * The response stream of one POSTed request. It answers with plain JSON unless something related
 * to the request has to go out first (progress, an input request); then it upgrades to an SSE
 * stream. The request's own response ends it.
 */
export class PostExchange implements Transport {
    onclose?: () => void;
    /** Made when the response turns into a stream: a plain JSON answer needs none. */
    private outbox?: SseOutbox;

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
        if (!this.outbox) {
            this.outbox = new SseOutbox(this.res);
            const id = this.owner.sessionId;
            this.res.writeHead(200, id === undefined ? SSE_HEADERS : { 'mcp-session-id': id, ...SSE_HEADERS });
        }
        if (!this.outbox.push(message)) {
            return false;
        }
        this.outbox.flush();
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
            text = this.outbox !== undefined || !this.acceptsJson ? frame(response) : JSON.stringify(response);
        } catch (err) {
            replyError(this.res, 500, ErrorCodes.InternalError, 'Internal error');
            throw err;
        }
        if (this.outbox !== undefined || !this.acceptsJson) {
            if (this.outbox) {
                this.outbox.end(text);
                return;
            }
            const id = this.owner.sessionId;
            this.res.writeHead(this.owner.statusOf?.(response) ?? 200, id === undefined ? SSE_HEADERS : { 'mcp-session-id': id, ...SSE_HEADERS });
            this.res.end(text);
            return;
        }
        const id = this.owner.sessionId;
        const length = String(Buffer.byteLength(text));
        this.res.writeHead(this.owner.statusOf?.(response) ?? 200, id === undefined ? { 'content-type': 'application/json', 'content-length': length } : { 'mcp-session-id': id, 'content-type': 'application/json', 'content-length': length });
        this.res.end(text);
    }

    private readonly closed = (): void => {
        if (!this.res.writableEnded) {
            this.onclose?.();
        }
    };
}
