/**
 * Resumable SSE streams (MCP 2025-11-25, Streamable HTTP, "Resumability and Redelivery"): every
 * event of a session's streams gets an id that names its stream, and the session keeps its latest
 * events, so a client that lost a connection reconnects with GET and Last-Event-ID and gets what
 * came after that id on that stream, and nothing of any other stream.
 */
import type { ServerResponse } from 'node:http';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/log.js';
import type { JsonRpcMessage } from '../rpc/messages.js';
import { SSE_HEADERS } from './sseOutbox.js';

/** What one session's replay window holds at most, all its streams together. */
export interface ReplayLimits {
    /** Events. */
    events: number;
    /** Characters of those events as written; the newest event is kept even when it alone is larger. */
    bytes: number;
    /** How long an event is kept; a POST stream whose client has not come back by then loses its request. */
    ageMs: number;
}

/**
 * 60 s: the priming event tells a client to reconnect after a second (SSE_RETRY_MS), and SDK
 * clients give up after a few tries with backoff well within a minute; a client gone longer has
 * lost more than one stream. 1 MiB: what a stream may hold unread anyway (SSE_QUEUE_LIMIT_BYTES),
 * so a resume replays no more than a slow reader could have had queued. 1,000 events: a tool's
 * progress every 100 ms stays under it for the whole minute, while a burst of small notifications
 * (a GET stream with thousands of tasks ticking) cannot hold more than that many entries.
 */
export const REPLAY_LIMITS: ReplayLimits = { events: 1000, bytes: 1024 * 1024, ageMs: 60_000 };

/** The `retry` a stream tells its client: how long it waits before reconnecting (the SDK client's own first backoff). */
export const SSE_RETRY_MS = 1000;

/** The `retry` field alone: a block with no data, which dispatches no event. */
export const RETRY_FIELD = `retry: ${SSE_RETRY_MS}\n\n`;

/** Why a Last-Event-ID resumes nothing: another session's, a forgotten stream's, or not an id this server gave. */
export const UNKNOWN_EVENT_ID = 'Last-Event-ID names no event of a stream of this session: there is nothing to resume';

/** `<stream>-<sequence>`: the stream number comes first, so an id names its stream. */
const EVENT_ID = /^(\d{1,15})-(\d{1,15})$/;

/**
 * Stream numbers count up for the whole process, not per session: an id from another session
 * then names no stream of this one (and replays nothing), instead of a stream of the same number.
 */
let lastStreamNumber = 0;

/** A stream a resume can reach: the POST response stream of a request, or a session's GET stream. */
export interface Resumable {
    /** The client reconnected: `res` (a GET's response, headers not yet written) carries the stream from now on, `missed` first. */
    resume(res: ServerResponse, missed: string): void;
}

/**
 * What resumes a stream that has sent its last event: its missed events, then the end. It holds
 * nothing, so the window keeps only an ended stream's events, not its request's objects (the
 * response, the request, the session: about 5 KB a stream, measured).
 */
const ENDED: Resumable = {
    resume(res, missed) {
        res.writeHead(200, SSE_HEADERS);
        res.end(RETRY_FIELD + missed);
    },
};

interface Kept {
    events: SseEvents;
    seq: number;
    text: string;
    at: number;
}

/** One stream's events: their ids, and what of them the session's window still holds. */
export class SseEvents {
    /** The last sequence number given out. */
    seq = 0;
    /** The newest of this stream's events the window has dropped (0: none). */
    droppedThrough = 0;
    /** This stream's events the window holds. */
    held = 0;
    /** The stream's last event has been given an id (its response); it stays resumable while its events are held. */
    ended = false;

    constructor(
        readonly window: ReplayWindow,
        readonly number: number,
        /** What a resume hands the new connection to; ENDED once the last event is out. */
        public owner: Resumable,
        /** Whether the stream starts with a priming event: the client's revision has them (2025-11-25). */
        readonly primes: boolean,
    ) {}

    /** The priming event, an id and empty data with `retry`, so the client holds a cursor before anything else comes; '' where the revision has none. */
    priming(): string {
        return this.primes ? `id: ${this.number}-${++this.seq}\nretry: ${SSE_RETRY_MS}\ndata:\n\n` : '';
    }

    /** `message` as an event with the next id, kept in the window for a resume. Throws (keeping nothing) when it cannot be encoded. */
    frame(message: JsonRpcMessage): string {
        const data = JSON.stringify(message);
        const seq = ++this.seq;
        const text = `id: ${this.number}-${seq}\nevent: message\ndata: ${data}\n\n`;
        this.window.keep(this, seq, text);
        return text;
    }

    /** The last event is out: a resume replays and ends; the window forgets the stream once it holds none of its events. */
    end(): void {
        this.ended = true;
        this.owner = ENDED;
        this.window.release(this);
    }

    /** The stream will not be resumed again (a new GET stream replaced it): a Last-Event-ID of it is unknown from now on. */
    forget(): void {
        this.ended = true;
        this.owner = ENDED;
        this.window.forget(this);
    }
}

/** What a Last-Event-ID resumes: the stream, and the frames written after that id. */
export interface Resumption {
    events: SseEvents;
    missed: string;
    count: number;
}

/**
 * One session's latest events, all its streams together, oldest first, within ReplayLimits. A
 * resume replays from here only the events of the stream the id names, after that id; when some
 * of those are gone it replays none (a gap the client could not see), and says so.
 */
export class ReplayWindow {
    private readonly streams = new Map<number, SseEvents>();
    private kept: (Kept | undefined)[] = [];
    private head = 0;
    private bytes = 0;

    constructor(
        readonly clock: Clock,
        readonly limits: ReplayLimits,
        readonly log: Logger,
    ) {}

    /** Events held now. */
    get size(): number {
        return this.kept.length - this.head;
    }

    /** A new stream of this session. */
    open(owner: Resumable, primes: boolean): SseEvents {
        const events = new SseEvents(this, ++lastStreamNumber, owner, primes);
        this.streams.set(events.number, events);
        return events;
    }

    /** @internal SseEvents.frame: one event, the oldest dropped past the limits. */
    keep(events: SseEvents, seq: number, text: string): void {
        const at = this.clock.now();
        this.kept.push({ events, seq, text, at });
        events.held++;
        this.bytes += text.length;
        this.trim(at);
    }

    /** Drops what is older than the limit (the session sweep calls it, so an idle session holds nothing for long). */
    prune(): void {
        this.trim(this.clock.now());
    }

    /** The stream and the events after `lastEventId` on it; a string saying why when there is nothing to resume. */
    find(lastEventId: string): Resumption | string {
        const match = EVENT_ID.exec(lastEventId);
        const events = match ? this.streams.get(Number(match[1])) : undefined;
        const seq = Number(match?.[2]);
        if (!events || seq > events.seq) {
            return UNKNOWN_EVENT_ID;
        }
        this.prune();
        if (seq < events.droppedThrough) {
            const { events: count, bytes, ageMs } = this.limits;
            return `Last-Event-ID is too old: events after it on that stream are no longer kept (a session keeps its last ${count} events, ${bytes} characters, ${ageMs / 1000} s)`;
        }
        let missed = '';
        let count = 0;
        for (let i = this.head; i < this.kept.length; i++) {
            const kept = this.kept[i]!;
            if (kept.events === events && kept.seq > seq) {
                missed += kept.text;
                count++;
            }
        }
        return { events, missed, count };
    }

    /** @internal SseEvents.end: an ended stream holding no events is forgotten. */
    release(events: SseEvents): void {
        if (events.held === 0) {
            this.forget(events);
        }
    }

    /** @internal SseEvents.forget. */
    forget(events: SseEvents): void {
        if (this.streams.get(events.number) === events) {
            this.streams.delete(events.number);
        }
    }

    private trim(now: number): void {
        const { events: maxEvents, bytes: maxBytes, ageMs } = this.limits;
        const cutoff = now - ageMs;
        while (this.head < this.kept.length) {
            const oldest = this.kept[this.head]!;
            const over = this.kept.length - this.head > maxEvents || (this.bytes > maxBytes && this.head < this.kept.length - 1);
            if (!over && oldest.at >= cutoff) {
                break;
            }
            this.kept[this.head++] = undefined;
            this.bytes -= oldest.text.length;
            const { events } = oldest;
            events.held--;
            events.droppedThrough = oldest.seq;
            if (events.ended) {
                this.release(events);
            }
        }
        // Dropped slots are reclaimed in one copy once they are half the array.
        if (this.head > 64 && this.head * 2 > this.kept.length) {
            this.kept = this.kept.slice(this.head);
            this.head = 0;
        }
    }
}
