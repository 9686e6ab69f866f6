import type { ServerResponse } from 'node:http';
import type { ClockTimer } from '../util/clock.js';
import { ErrorCodes } from '../rpc/errors.js';
import type { JsonRpcMessage, RequestId } from '../rpc/messages.js';
import type { Transport } from '../rpc/transport.js';
import { replyError } from './httpReply.js';
import { frame, progressKey, SSE_HEADERS, SseOutbox, writable } from './sseOutbox.js';
import { RETRY_FIELD, type Resumable, type SseEvents } from './sseReplay.js';

/** The HTTP session a POST belongs to, as its response stream sees it. */
export interface ExchangeOwner {
    /** The Mcp-Session-Id the response names; undefined until a successful initialize establishes the session. */
    readonly sessionId: string | undefined;
    /** Called just before `response` goes out (the session is active; what its GET stream holds goes first). */
    responding(response: JsonRpcMessage): void;
    /** The HTTP status of a plain JSON answer; 200 when absent (2026-07-28 answers some errors with 400 or 404). */
    statusOf?(response: JsonRpcMessage): number;
    /** Whether its streams start with a priming event (a 2025-11-25 client): only then may the server close a connection mid-stream. */
    readonly primes?: boolean;
    /** Ids and a place in the replay window for a new stream; absent where streams are not resumed (a sessionless request's). */
    openStream?(stream: Resumable): SseEvents | undefined;
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

/** A sessionless (2026-07-28) request's response stream: no Mcp-Session-Id, an error's own status, nothing to resume (that revision has no resumption). */
export const NO_SESSION: ExchangeOwner = {
    sessionId: undefined,
    responding: () => undefined,
    statusOf: response => ('error' in response && response.error ? (STATUS_BY_CODE.get(response.error.code) ?? 200) : 200),
};

/**
 * The response stream of one POSTed request. It answers with plain JSON unless something related
 * to the request has to go out first (progress, an input request); then it upgrades to an SSE
 * stream, which in a session is resumable: each event has an id, and when the connection is lost
 * before the response the request goes on, its events kept for the client's GET with
 * Last-Event-ID (the replay window's age at most; then it is aborted as a closed connection used
 * to abort it at once). The request's own response ends the stream.
 */
export class PostExchange implements Transport, Resumable {
    onclose?: () => void;
    /** The response the stream is written to now: the POST's own, a resuming GET's, or none while the client reconnects. */
    private current: ServerResponse | undefined;
    /** The current response's queue, once the answer is a stream: a plain JSON answer needs none. */
    private outbox?: SseOutbox;
    private streaming = false;
    /** Ids and the replay window: set when a session's answer turns into a stream. */
    private events?: SseEvents;
    private answered = false;
    /** Set while no connection carries the stream: when it fires, the client is not coming back. */
    private giveUp?: ClockTimer;

    constructor(
        private readonly res: ServerResponse,
        private readonly owner: ExchangeOwner,
        private readonly requestId: RequestId,
        private readonly acceptsSse: boolean,
        private readonly acceptsJson = true,
    ) {
        this.current = res;
        // on, not once: 'close' comes once anyway, and once() wraps the listener on every request.
        res.on('close', this.closed);
    }

    send(message: JsonRpcMessage): boolean {
        if (!('method' in message) && message.id === this.requestId) {
            this.finish(message);
            return true;
        }
        if (!this.acceptsSse) {
            return false;
        }
        if (!this.streaming) {
            if (!writable(this.res)) {
                return false;
            }
            this.startStream();
        }
        if (this.events === undefined) {
            // A sessionless stream cannot be resumed: what its client no longer reads goes nowhere.
            return this.connected() && this.push(frame(message), message);
        }
        const connected = this.connected();
        if (!connected && 'id' in message) {
            // A request to the client waits in the connection's queue rather than in a stream the
            // client may never resume (it may ask again on another one); a resume flushes that queue.
            return false;
        }
        const text = this.events.frame(message);
        if (connected) {
            this.push(text, message);
        }
        // Kept in the window, it is on the stream: a connection lost now costs the client a resume, not the message.
        return true;
    }

    /**
     * Ends the connection without ending the stream (SEP-1699 polling), once a priming event has
     * given the client an id to come back with; the client reconnects with GET and Last-Event-ID
     * after `retry` and gets the rest there. False where that cannot be (a client before 2025-11-25,
     * one that does not accept SSE, a sessionless request, an answered one).
     */
    closeConnection(): boolean {
        if (this.answered || !this.acceptsSse || !this.owner.primes) {
            return false;
        }
        if (!this.streaming) {
            if (!writable(this.res)) {
                return false;
            }
            this.startStream();
        }
        const { outbox } = this;
        this.detach();
        // The spec asks for a retry field before such a close; the priming event had one too.
        outbox?.end(RETRY_FIELD);
        return true;
    }

    resume(res: ServerResponse, missed: string): void {
        const old = this.current;
        if (old !== undefined) {
            // The client gave up on it, or it would not have resumed: nothing more goes there.
            this.current = undefined;
            this.outbox = undefined;
            old.destroy();
        }
        this.stopWaiting();
        // Unanswered: once answered, the stream's events resume without it (SseEvents.end).
        res.writeHead(200, SSE_HEADERS);
        this.current = res;
        this.outbox = new SseOutbox(res);
        res.on('close', () => this.dropped(res));
        this.outbox.write(RETRY_FIELD + missed);
    }

    close(): void {
        this.stopWaiting();
        const { current } = this;
        if (current !== undefined && writable(current)) {
            current.end();
        }
    }

    private startStream(): void {
        this.streaming = true;
        this.events = this.owner.openStream?.(this);
        const id = this.owner.sessionId;
        this.res.writeHead(200, id === undefined ? SSE_HEADERS : { 'mcp-session-id': id, ...SSE_HEADERS });
        this.outbox = new SseOutbox(this.res);
        const priming = this.events?.priming();
        if (priming) {
            // Queued, not written: it goes out with what started the stream, in one write.
            this.outbox.push(priming, undefined);
        }
    }

    /** Whether a connection carries the stream now. */
    private connected(): boolean {
        return this.outbox !== undefined && this.current !== undefined && writable(this.current);
    }

    private push(text: string, message: JsonRpcMessage): boolean {
        const pushed = this.outbox!.push(text, progressKey(message));
        if (pushed) {
            this.outbox!.flush();
        }
        return pushed;
    }

    private finish(response: JsonRpcMessage): void {
        this.owner.responding(response);
        if (!this.streaming) {
            if (!writable(this.res)) {
                return;
            }
            if (this.acceptsJson) {
                this.answerJson(response);
                return;
            }
            if (this.owner.openStream === undefined) {
                this.answerOneEvent(response);
                return;
            }
            this.startStream();
        }
        // Encoded before anything is kept: a response that cannot be is replaced by an error response (sendResponse).
        const text = this.events ? this.events.frame(response) : frame(response);
        this.answered = true;
        this.events?.end();
        this.stopWaiting();
        if (this.connected()) {
            this.outbox!.end(text);
        } else if (this.events !== undefined) {
            this.events.window.log.debug(`[http] stream ${this.events.number}: the response to ${String(this.requestId)} waits for the client to resume (GET with Last-Event-ID)`);
        }
    }

    private answerJson(response: JsonRpcMessage): void {
        let text: string;
        try {
            text = JSON.stringify(response);
        } catch (err) {
            replyError(this.res, 500, ErrorCodes.InternalError, 'Internal error');
            throw err;
        }
        this.answered = true;
        const id = this.owner.sessionId;
        const length = String(Buffer.byteLength(text));
        this.res.writeHead(this.owner.statusOf?.(response) ?? 200, id === undefined ? { 'content-type': 'application/json', 'content-length': length } : { 'mcp-session-id': id, 'content-type': 'application/json', 'content-length': length });
        this.res.end(text);
    }

    /** A sessionless request from a client that takes only SSE: the response as the one event, with its status. */
    private answerOneEvent(response: JsonRpcMessage): void {
        let text: string;
        try {
            text = frame(response);
        } catch (err) {
            replyError(this.res, 500, ErrorCodes.InternalError, 'Internal error');
            throw err;
        }
        this.answered = true;
        this.res.writeHead(this.owner.statusOf?.(response) ?? 200, SSE_HEADERS);
        this.res.end(text);
    }

    private readonly closed = (): void => this.dropped(this.res);

    /** `res` closed: ended on purpose, answered, or lost; lost, the request waits for a resume if it can, else it is aborted. */
    private dropped(res: ServerResponse): void {
        if (res !== this.current) {
            return;
        }
        this.current = undefined;
        this.outbox = undefined;
        if (this.answered || res.writableEnded) {
            return;
        }
        if (this.events !== undefined) {
            this.detach();
            return;
        }
        this.onclose?.();
    }

    /** No connection carries the stream until the client resumes it; past the window's age it is not coming back. */
    private detach(): void {
        this.current = undefined;
        this.outbox = undefined;
        const { events } = this;
        if (events !== undefined && !this.answered && this.giveUp === undefined) {
            this.giveUp = events.window.clock.setTimeout(this.abandoned, events.window.limits.ageMs, undefined, true);
        }
    }

    private readonly abandoned = (): void => {
        this.giveUp = undefined;
        if (!this.answered && this.current === undefined) {
            this.events?.window.log.debug(`[http] stream ${this.events.number}: not resumed within ${this.events.window.limits.ageMs / 1000} s, request ${String(this.requestId)} aborted`);
            this.onclose?.();
        }
    };

    private stopWaiting(): void {
        if (this.giveUp !== undefined) {
            this.events?.window.clock.clearTimeout(this.giveUp);
            this.giveUp = undefined;
        }
    }
}
