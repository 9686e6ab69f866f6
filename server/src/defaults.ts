/*
 * Every default a flag has that is a number or a choice, in one leaf with no imports: the server's
 * modules, the flag table (server/src/flags/table.ts) and through it the extension read them here.
 */

/** The task runtime's limits (tasks/runtime.ts). */
export interface RuntimeLimits {
    defaultTtlMs: number;
    maxTtlMs: number;
    maxTasksPerClient: number;
    /** Tasks (finished ones included) one client may hold in the store; unbounded when not given. */
    maxRetainedTasksPerClient?: number;
    /** What those tasks may hold together: arguments, progress tokens, results (characters of JSON). */
    maxRetainedBytesPerClient?: number;
    pollIntervalMs: number;
    /** How many levels of sub-tasks may nest below a task a client started (its children are level 1). */
    maxSubtaskDepth: number;
    /** How many sub-tasks one task may start over its life. */
    maxChildrenPerTask: number;
    /** Cancel a task-augmented call's task its client stopped following this long ago; 0 = never. */
    abandonAfterMs?: number;
    /**
     * When a task-augmented call's client misses STOPPED_AFTER_POLLS polls in a row (VS Code when
     * its chat request is stopped: it sends nothing, its polls just end), the task is marked for the
     * owner; `cancel` also cancels it after STOPPED_CANCEL_POLLS, `keep` leaves it running (until
     * abandonAfterMs, if set); `off`: not watched for that.
     */
    stoppedWaiting?: StoppedWaitingAction;
}

export type StoppedWaitingAction = 'off' | 'keep' | 'cancel';

/** The library's task limits when a caller gives none; the command line's defaults are these too. */
export const DEFAULT_LIMITS: Required<RuntimeLimits> = {
    defaultTtlMs: 60 * 60 * 1000,
    maxTtlMs: 24 * 60 * 60 * 1000,
    maxTasksPerClient: 1000,
    maxRetainedTasksPerClient: 10_000,
    maxRetainedBytesPerClient: 64 * 1024 * 1024,
    pollIntervalMs: 1000,
    maxSubtaskDepth: 4,
    maxChildrenPerTask: 16,
    abandonAfterMs: 0,
    stoppedWaiting: 'off',
};

export interface ConnectionLimits {
    /** Open connections at most; at the cap a new one displaces the oldest that has not authenticated. */
    maxConnections: number;
    /** A connection that has not sent an authenticated request this long after it opened is cut. */
    handshakeMs: number;
    /** A request body not received in full this long after its headers is cut (a trickle as much as a stall). */
    bodyMs: number;
    /**
     * Requests of one client credential whose body is still arriving; one more is refused, so a
     * client trickling bodies holds at most this many connections. Never more than half of
     * maxConnections, so others (and the owner, never limited) still get in.
     */
    maxPendingBodies: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { maxConnections: 512, handshakeMs: 5000, bodyMs: 10_000, maxPendingBodies: 32 };

/** What one client credential (a token, or every caller without one) may do with HTTP sessions (2025-11-25); the owner is not limited. */
export interface SessionLimits {
    /** Sessions open at once; at the cap a new one closes the least recently active idle one, or is refused. */
    maxSessions: number;
    /** New sessions a minute, refilled evenly; as many may come at once after a quiet minute. */
    sessionsPerMinute: number;
}

/**
 * 64 sessions are far more than an editor or agent opens on one credential (VS Code opens one per
 * server; the load test's 50 clients sharing a token fit), and hold little (a session alone is
 * about 4.5 KB of heap, docs/RELIABILITY.md). 300 a minute leaves room for scripts that open a
 * session per call (the soak's visitors come two a second) and lets a credential refill its cap at
 * once, while a loop that initializes as fast as it can (idle.test.ts opens hundreds a second) is
 * held to five a second.
 */
export const DEFAULT_SESSION_LIMITS: SessionLimits = { maxSessions: 64, sessionsPerMinute: 300 };

/** The default of --max-command-processes: command runs at once, all commands together. */
export const DEFAULT_MAX_COMMAND_PROCESSES = 32;

/** The default cap on what the logs of one server hold together. */
export const DEFAULT_LOG_LIMIT_BYTES = 1024 * 1024 * 1024;

/**
 * A plain call still running after this answers "continues as task X": 10 s under the 60 s at
 * which Claude Code (SDK default), Copilot CLI and Copilot for Eclipse give up (docs/GATEWAY.md has
 * the table), so the answer is in before the shortest common cap, with room for the transport.
 */
export const DEFAULT_DEFER_AFTER_MS = 50_000;
