import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Clock, ClockTimer } from '../util/clock.js';
import type { Logger } from '../util/log.js';
import type { McpSession, SessionChannel } from '../mcp/rev2025/session.js';
import type { JsonRpcMessage } from '../rpc/messages.js';

import type { Transport } from '../rpc/transport.js';
import type { TasksServer } from '../server.js';
import type { ClientIdentity } from '../tasks/hub.js';
import type { Caller } from './httpAuth.js';
import type { ExchangeOwner } from './postExchange.js';
import { SseStream } from './sse.js';
import { REPLAY_LIMITS, ReplayWindow, UNKNOWN_EVENT_ID, type ReplayLimits, type Resumable, type SseEvents } from './sseReplay.js';
import { PROTOCOL_2025 } from '../contract.js';
import { SessionLimiter, type SessionLimits, type SessionRefusal } from './sessionLimits.js';

/** The header that names a 2025-11-25 session over HTTP. */
export const SESSION_HEADER = 'mcp-session-id';

/**
 * One Mcp-Session-Id: its MCP session, its GET stream (open, or waiting for a resume), its replay
 * window, and when it was last active.
 */
export class HttpSession implements SessionChannel, ExchangeOwner {
    session!: McpSession;
    stream?: SseStream;
    lastSeen: number;
    /** Set by a successful initialize: only then is the id issued and the session found by it. */
    ready = false;
    onReady?: (entry: HttpSession) => void;
    /** Made with the session's first stream: a session answered only in plain JSON holds none. */
    private replay?: ReplayWindow;

    constructor(
        readonly id: string,
        readonly principal: string,
        private readonly clock: Clock,
        /** false: streams have no ids and are not resumed. */
        private readonly replayLimits: ReplayLimits | false,
        private readonly log: Logger,
    ) {
        this.lastSeen = clock.now();
    }

    /** Whether a Last-Event-ID is looked up at all (else a GET is a new stream, as on a server without resumption). */
    get resumable(): boolean {
        return this.replayLimits !== false;
    }

    /**
     * Streams start with a priming event for clients of 2025-11-25 or later (version strings are
     * dates, so they compare as text): the event is that revision's, and an earlier client does
     * not expect one without a message (the SDKs, too, send it only from that revision on).
     */
    get primes(): boolean {
        return this.replayLimits !== false && (this.session.protocolVersion ?? '') >= PROTOCOL_2025;
    }

    openStream(stream: Resumable): SseEvents | undefined {
        if (this.replayLimits === false) {
            return undefined;
        }
        this.replay ??= new ReplayWindow(this.clock, this.replayLimits, this.log);
        return this.replay.open(stream, this.primes);
    }

    /** A GET without Last-Event-ID: a new standalone stream on `res`; the one before it can no longer be resumed. */
    listen(res: ServerResponse, keepAliveMs: number): SseStream {
        this.stream?.close();
        const stream = new SseStream(res, keepAliveMs, this.clock, owner => this.openStream(owner));
        this.stream = stream;
        stream.onclose = () => this.touch();
        return stream;
    }

    /** A GET with Last-Event-ID: the stream it names goes on over `res`, what was missed first; else why not. */
    resume(lastEventId: string, res: ServerResponse): string | undefined {
        const found = this.replay?.find(lastEventId) ?? UNKNOWN_EVENT_ID;
        if (typeof found === 'string') {
            return found;
        }
        // lastEventId matched the id pattern (digits and a dash), so it cannot forge a log line.
        this.log.debug(`[http] stream ${found.events.number} resumed after ${lastEventId}: ${found.count} missed event(s) replayed`);
        found.events.owner.resume(res, found.missed);
        return undefined;
    }

    /** Drops replay events past their age (the sweep). */
    prune(): void {
        this.replay?.prune();
    }

    /**
     * The session is ending: its GET stream ends. Its requests' streams end with their responses,
     * which the session's close brings (an error for each request still running).
     */
    closeStreams(): void {
        this.stream?.close();
    }

    standalone(): Transport | undefined {
        return this.stream?.open ? this.stream : undefined;
    }

    touch(): void {
        this.lastSeen = this.clock.now();
    }

    get sessionId(): string | undefined {
        return this.ready ? this.id : undefined;
    }

    /** A response is going out: what the GET stream holds (say, the status of the task it answers) goes first. */
    responding(response: JsonRpcMessage): void {
        if (!this.ready && 'result' in response) {
            this.ready = true;
            this.onReady?.(this);
        }
        this.lastSeen = this.clock.now();
        this.stream?.flush();
    }

    /** Neither a stream nor a request keeps it: closing it interrupts nothing its client waits on. */
    get quiet(): boolean {
        return !this.stream?.open && !this.session.busy;
    }

    /** Quiet, and nothing came since `cutoff`. */
    idleSince(cutoff: number): boolean {
        return this.quiet && this.lastSeen < cutoff;
    }
}

export interface HttpSessionsOptions {
    /** Sessions with no request and no open stream for this long are closed. */
    idleMs: number;
    /** What a task is bound to: the HTTP session, or the client's credential (shared stores). */
    bindTo: 'session' | 'principal';
    /** How many sessions each client credential may hold and open a minute; unlimited when not given. */
    limits?: SessionLimits;
    /** What each session keeps for resumption (REPLAY_LIMITS when not given); false: no event ids, no resumption. */
    replay?: ReplayLimits | false;
}

type SessionHost = Pick<TasksServer, 'createSession' | 'endSession'>;

/** What a credential's tasks are bound to: the owner's are the owner's; a client's, its principal's (`--bind principal`, and every 2026-07-28 request). */
function credentialKey(caller: Caller): string {
    return caller.isOwner ? 'owner' : `principal:${caller.principal}`;
}

/** Why a session closed to make room goes: its running tasks carry this as their status message. */
export const MADE_ROOM_REASON = 'Session closed to make room for a newer session of the same credential (--max-sessions)';

/** The HTTP sessions of one endpoint: the limits on opening them, and the sweep that closes the idle ones. */
export class HttpSessions {
    private readonly byId = new Map<string, HttpSession>();
    /** Every session begun and not ended, by its caller's principal (those still initializing too). */
    private readonly byPrincipal = new Map<string, Set<HttpSession>>();
    private readonly credentials = new Map<string, ClientIdentity>();
    private readonly sweeper: ClockTimer;
    private readonly limiter?: SessionLimiter;

    constructor(
        private readonly core: SessionHost,
        private readonly options: HttpSessionsOptions,
        private readonly log: Logger,
        private readonly clock: Clock,
    ) {
        this.sweeper = clock.setInterval(() => this.sweep(), Math.max(50, Math.min(options.idleMs / 4, 60_000)), true);
        this.limiter = options.limits && new SessionLimiter(options.limits, clock);
    }

    get size(): number {
        return this.byId.size;
    }

    get(id: string): HttpSession | undefined {
        return this.byId.get(id);
    }

    /**
     * A session for an initialize request, or why the caller may not open one (SessionLimiter);
     * at its cap the caller's least recently active quiet session is closed first. It is found by
     * its id (and the id issued) only once initialize succeeds; `discard` ends it when it does not.
     */
    begin(caller: Caller): HttpSession | SessionRefusal {
        let own = this.byPrincipal.get(caller.principal);
        const admission = this.limiter?.admit(caller, own);
        if (admission && 'refused' in admission) {
            return admission;
        }
        if (admission?.evict) {
            this.log.info(`[http] closing session ${admission.evict.id.slice(0, 8)}… to make room: its credential has ${own!.size} open (--max-sessions)`);
            this.end(admission.evict, MADE_ROOM_REASON);
        }
        const id = randomUUID();
        const clientKey = this.options.bindTo === 'principal' && !caller.isOwner ? credentialKey(caller) : `session:${id}`;
        const entry = new HttpSession(id, caller.principal, this.clock, this.options.replay ?? REPLAY_LIMITS, this.log);
        entry.session = this.core.createSession({ clientKey, isOwner: caller.isOwner }, entry);
        entry.onReady = this.admit;
        if (!own) {
            own = new Set();
            this.byPrincipal.set(caller.principal, own);
        }
        own.add(entry);
        return entry;
    }

    /**
     * The identity of a credential, for the requests that come with no session (2026-07-28): every
     * POST stands alone, so a client's tasks are found again by whatever request, replica or
     * connection comes next. Without tokens every caller is the same anonymous one, whose tasks are
     * reached by id only and never listed (ClientIdentity.anonymous).
     */
    identityOf(caller: Caller): ClientIdentity {
        let identity = this.credentials.get(caller.principal);
        if (!identity) {
            identity = { clientKey: credentialKey(caller), isOwner: caller.isOwner, ...(caller.anonymous ? { anonymous: true } : {}) };
            this.credentials.set(caller.principal, identity);
        }
        return identity;
    }

    /** An established session, as after a successful initialize with no client capabilities (library use, tests). */
    open(caller: Caller): HttpSession {
        const entry = this.begin(caller);
        if ('refused' in entry) {
            throw new Error(entry.message);
        }
        entry.session.initialized(PROTOCOL_2025, {}, undefined);
        entry.ready = true;
        this.admit(entry);
        return entry;
    }

    /** Ends a session whose initialize failed (or whose client left before the answer). */
    discard(entry: HttpSession): void {
        if (!entry.ready) {
            this.end(entry, 'initialize did not succeed');
        }
    }

    private readonly admit = (entry: HttpSession): void => {
        this.byId.set(entry.id, entry);
    };

    /** Ends one session; bound to the session, its running tasks are cancelled with `reason`. */
    end(entry: HttpSession, reason: string): void {
        this.byId.delete(entry.id);
        const own = this.byPrincipal.get(entry.principal);
        if (own?.delete(entry) && own.size === 0) {
            this.byPrincipal.delete(entry.principal);
        }
        entry.closeStreams();
        void this.core.endSession(entry.session, reason, this.options.bindTo === 'session');
    }

    /** Closes every session idle for longer than the limit. */
    sweep(): void {
        const cutoff = this.clock.now() - this.options.idleMs;
        for (const entry of this.byId.values()) {
            entry.prune();
            if (entry.idleSince(cutoff)) {
                this.log.info(`[http] closing idle session ${entry.id.slice(0, 8)}…`);
                this.end(entry, 'Session closed after being idle');
            }
        }
    }

    /** Stops the sweep and closes every session (their tasks are the server's to cancel on shutdown). */
    close(reason: string): void {
        this.clock.clearInterval(this.sweeper);
        for (const entry of this.byId.values()) {
            entry.closeStreams();
            entry.session.close(reason);
        }
        this.byId.clear();
        this.byPrincipal.clear();
    }
}
