import type { SessionLimits } from '../defaults.js';
import type { Clock } from '../util/clock.js';
import { TokenBuckets } from '../util/tokenBuckets.js';
import type { Caller } from './httpAuth.js';

export { DEFAULT_SESSION_LIMITS, type SessionLimits } from '../defaults.js';

/** An open session as the limits see it (HttpSession). */
export interface LimitedSession {
    /** When it last received a request or sent an answer. */
    readonly lastSeen: number;
    /** No request in flight and no open GET stream: closing it interrupts nothing the client waits on. */
    readonly quiet: boolean;
}

/** Why a new session was refused: 429, with Retry-After when waiting helps, and words for the JSON-RPC error. */
export interface SessionRefusal {
    readonly refused: true;
    readonly message: string;
    readonly retryAfterSeconds?: number;
    readonly data: { limit: number; kind: 'sessions' | 'sessionRate' };
}

/** What a new session needs first: nothing, closing `evict`, or it is refused. */
export type Admission<S> = { evict?: S } | SessionRefusal;

/** Whose limit it is, in the words of a refusal. */
function whose(caller: Caller): string {
    return caller.anonymous ? 'callers without a token (they share one limit; give each client its own --token)' : 'this token';
}

/**
 * The one place that decides whether a credential may open another HTTP session: at most
 * `maxSessions` open (at the cap its least recently active quiet session makes room, and with
 * none quiet the new one is refused) and `sessionsPerMinute` new ones (a token bucket as deep as
 * a minute's worth). The owner is never limited: clients cannot lock the editor out.
 */
export class SessionLimiter {
    private readonly buckets: TokenBuckets;

    constructor(
        private readonly limits: SessionLimits,
        clock: Clock,
    ) {
        this.buckets = new TokenBuckets(limits.sessionsPerMinute, limits.sessionsPerMinute, clock);
    }

    /** Room for one more session of `caller`, whose open sessions are `open`; a refusal takes nothing from its rate. */
    admit<S extends LimitedSession>(caller: Caller, open: Iterable<S> | undefined): Admission<S> {
        if (caller.isOwner) {
            return {};
        }
        let count = 0;
        let evict: S | undefined;
        for (const session of open ?? []) {
            count++;
            if (session.quiet && (!evict || session.lastSeen < evict.lastSeen)) {
                evict = session;
            }
        }
        const { maxSessions, sessionsPerMinute } = this.limits;
        if (count >= maxSessions && !evict) {
            return {
                refused: true,
                message:
                    `Too many open sessions for ${whose(caller)}: all ${maxSessions} (--max-sessions) have a request in flight or an open GET stream, ` +
                    'so none could be closed to make room. End the sessions you no longer need with DELETE (their Mcp-Session-Id), or start the server with a higher --max-sessions.',
                data: { limit: maxSessions, kind: 'sessions' },
            };
        }
        const waitMs = this.buckets.take(caller.principal);
        if (waitMs > 0) {
            const seconds = Math.ceil(waitMs / 1000);
            return {
                refused: true,
                message:
                    `Too many new sessions for ${whose(caller)}: at most ${sessionsPerMinute} a minute (--session-rate). ` +
                    `Try again in ${seconds} s, and keep using a session (its Mcp-Session-Id) rather than initializing again for each request.`,
                retryAfterSeconds: seconds,
                data: { limit: sessionsPerMinute, kind: 'sessionRate' },
            };
        }
        return count >= maxSessions ? { evict } : {};
    }
}
