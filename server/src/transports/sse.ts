import type { ServerResponse } from 'node:http';
import type { Clock, ClockTimer } from '../util/clock.js';
import type { JsonRpcMessage } from '../rpc/messages.js';
import type { Transport } from '../rpc/transport.js';
import { frame, progressKey, SSE_HEADERS, SseOutbox, writable } from './sseOutbox.js';
import { RETRY_FIELD, type Resumable, type SseEvents } from './sseReplay.js';

const GET_SSE_HEADERS = { ...SSE_HEADERS, connection: 'keep-alive' } as const;

/**
 * The session's standalone stream, opened by GET. Frames sent in one turn of the event loop
 * (a burst of progress from many tasks) are written together: one chunk, one system call. A
 * reader that does not keep up holds at most the outbox's limit (see SseOutbox). In a session
 * with a replay window its events have ids: a client whose connection dropped resumes it with
 * GET and Last-Event-ID and gets what it missed. While no connection carries it, it takes
 * nothing new: messages that are not tied to a request then wait or go elsewhere (RpcConnection),
 * as they always did without a GET stream.
 */
export class SseStream implements Transport, Resumable {
    onclose?: () => void;
    private current?: ServerResponse;
    private outbox?: SseOutbox;
    private keepAlive?: ClockTimer;
    private scheduled = false;
    private readonly events?: SseEvents;

    constructor(
        res: ServerResponse,
        private readonly keepAliveMs: number,
        private readonly clock: Clock,
        /** Ids and a place in the session's replay window; none: the stream is not resumable. */
        openEvents?: (stream: Resumable) => SseEvents | undefined,
        private readonly queueLimit?: number,
    ) {
        this.events = openEvents?.(this);
        this.attach(res, this.events?.priming() ?? '');
    }

    get open(): boolean {
        return this.outbox !== undefined && this.current !== undefined && writable(this.current);
    }

    /** Characters queued for a reader that has not taken them yet. */
    get queued(): number {
        return this.outbox?.queued ?? 0;
    }

    send(message: JsonRpcMessage): boolean {
        const { outbox } = this;
        if (!this.open) {
            return false;
        }
        const text = this.events ? this.events.frame(message) : frame(message);
        // Kept in the window, it is on the stream even if the connection is cut now: a resume replays it.
        if (!outbox!.push(text, progressKey(message)) && this.events === undefined) {
            return false;
        }
        if (!this.scheduled) {
            this.scheduled = true;
            setImmediate(this.flush);
        }
        return true;
    }

    resume(res: ServerResponse, missed: string): void {
        this.detach();
        // The client gave up on the old connection, or it would not have resumed: nothing more goes there.
        this.current?.destroy();
        this.attach(res, RETRY_FIELD + missed);
    }

    close(): void {
        this.events?.forget();
        const { current, outbox } = this;
        this.detach();
        if (current !== undefined && outbox !== undefined && writable(current)) {
            outbox.end();
        }
    }

    /** Writes what is pending now; the transport calls it before a response that must follow it. */
    readonly flush = (): void => {
        this.scheduled = false;
        if (this.open) {
            this.outbox!.flush();
        }
    };

    private attach(res: ServerResponse, head: string): void {
        const outbox = new SseOutbox(res, this.queueLimit);
        this.current = res;
        this.outbox = outbox;
        res.writeHead(200, GET_SSE_HEADERS);
        if (head) {
            outbox.write(head);
        } else {
            res.flushHeaders();
        }
        // A comment line now and then keeps proxies from closing the stream and reveals dead peers
        // (not needed while frames wait: they are the traffic).
        this.keepAlive = this.clock.setInterval(() => writable(res) && outbox.empty && res.write(': keep-alive\n\n'), this.keepAliveMs, true);
        res.once('close', () => {
            if (this.current !== res) {
                return;
            }
            this.detach();
            this.current = undefined;
            this.onclose?.();
        });
    }

    /** The current connection no longer carries the stream (its response is left to the caller). */
    private detach(): void {
        this.clock.clearInterval(this.keepAlive);
        this.keepAlive = undefined;
        this.outbox = undefined;
    }
}
