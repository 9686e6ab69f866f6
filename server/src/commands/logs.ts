import { mkdirSync, mkdtempSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock, ClockTimer } from '../util/clock.js';
import type { OutputLog } from '../tools/types.js';
import { LOG_FOLDER_PREFIX, markOwner } from './leftovers.js';
import { LogGuard } from './logGap.js';
import { shrinkEndedLog, SHRUNK_LOG_BYTES } from './logShrink.js';
import { DEFAULT_LOG_LIMIT_BYTES } from '../defaults.js';
export { DEFAULT_LOG_LIMIT_BYTES } from '../defaults.js';

/** How long the log of a call that ran inline (no task, so no TTL) is kept. */
export const INLINE_LOG_KEEP_MS = 60 * 60 * 1000;
/** How long the running logs' summed size is reused: every run's end sweeps, and re-reading every
 * running log's size each time made 100 runs ending together cost 100² stat calls. */
const RUNNING_SIZE_REUSE_MS = 1000;

export interface LogEntry extends OutputLog {
    readonly name: string;
    /** The tasks that read this log (its run's, and those attached to it). */
    readonly tasks: string[];
    /** Set once the run has ended: when the log may go (its task's TTL, restarted at the end). */
    expiresAt?: number;
    /** Its size when the run ended. */
    bytes?: number;
    /** Its size at the last measure of the running logs. */
    measuredBytes?: number;
    /** Its middle is being cut out (logShrink.ts); settles when the file is final. */
    shrinking?: Promise<void>;
    /** Its run goes on without this server (a kept command let go at shutdown): the file stays for the next one. */
    letGo?: boolean;
}

export interface CommandLogsOptions {
    /** A folder the user chose (kept on exit); default a fresh private one under the temp dir, removed on exit. */
    dir?: string;
    maxBytes?: number;
    clock: Clock;
}

/**
 * The folder of one server's command logs: each log is known by its task, read by read_output
 * and get_task, and deleted when its task expires, never before: a task does not point at a log
 * that is gone. When the logs together pass the size cap, the oldest ended ones are cut to their
 * first and last lines (logShrink.ts), one marker saying what went. A folder this made is removed
 * on close.
 */
export class CommandLogs {
    readonly dir: string;
    readonly maxBytes: number;
    private readonly owned: boolean;
    private readonly clock: Clock;
    private readonly byTask = new Map<string, LogEntry>();
    /** Every log still on disk, oldest first. */
    private readonly entries = new Set<LogEntry>();
    private timer?: ClockTimer;
    private timerAt = Infinity;
    private runs = 0;
    private runningBytes = 0;
    private runningMeasuredAt = -Infinity;

    constructor(options: CommandLogsOptions) {
        this.owned = options.dir === undefined;
        if (options.dir !== undefined) {
            mkdirSync(options.dir, { recursive: true, mode: 0o700 });
        }
        this.dir = options.dir ?? mkdtempSync(join(tmpdir(), LOG_FOLDER_PREFIX));
        if (this.owned) {
            // Names this process, so that if it dies without closing, the next server removes the folder.
            markOwner(this.dir);
        }
        this.maxBytes = options.maxBytes ?? DEFAULT_LOG_LIMIT_BYTES;
        this.clock = options.clock;
    }

    /** A new log for a run of `name` (as task `taskId`, or inline). */
    create(name: string, taskId?: string): LogEntry {
        const path = join(this.dir, `${name}-${taskId ?? 'inline'}-${process.pid}-${++this.runs}.log`);
        const entry: LogEntry = { name, path, running: true, readTo: new Map(), seenSize: new Map(), guard: new LogGuard(), tasks: [] };
        this.entries.add(entry);
        if (taskId !== undefined) {
            this.share(taskId, entry);
        }
        return entry;
    }

    /**
     * The log of a run a server that is gone started and this one re-adopts (adopt.ts): kept at
     * its path, so what the task's client was told still names it; rewritten from the run's capture.
     */
    adopt(path: string, name: string, taskId: string): LogEntry {
        const entry: LogEntry = { name, path, running: true, readTo: new Map(), seenSize: new Map(), guard: new LogGuard(), tasks: [] };
        this.entries.add(entry);
        this.share(taskId, entry);
        return entry;
    }

    /** A task that follows another's run (whenBusy "attach") reads that run's log. */
    share(taskId: string, entry: LogEntry): void {
        entry.tasks.push(taskId);
        this.byTask.set(taskId, entry);
    }

    find(taskId: string): LogEntry | undefined {
        return this.byTask.get(taskId);
    }

    /** The run ended: its log stays `keepMs` (its task's TTL), less if the folder is over its cap. */
    ended(entry: LogEntry, keepMs: number): void {
        entry.running = false;
        entry.expiresAt = this.clock.now() + keepMs;
        entry.bytes = sizeOf(entry.path);
        // Now counted as ended: take what it added to the reused running figure back out.
        this.runningBytes -= entry.measuredBytes ?? 0;
        this.sweep();
    }

    /** Deletes expired logs, then cuts the oldest ended ones down while the folder is over its cap. */
    sweep(): void {
        const now = this.clock.now();
        let total = 0;
        for (const entry of this.entries) {
            if (entry.expiresAt !== undefined && entry.expiresAt <= now) {
                this.remove(entry, 'its task expired');
            } else {
                total += entry.bytes ?? 0;
            }
        }
        total += this.runningSize(now);
        for (const entry of this.entries) {
            if (total <= this.maxBytes) {
                break;
            }
            if (!entry.running && entry.shrinking === undefined && (entry.bytes ?? 0) > SHRUNK_LOG_BYTES) {
                total -= (entry.bytes ?? 0) - SHRUNK_LOG_BYTES;
                this.shrink(entry);
            }
        }
        this.arm();
    }

    /** Cuts an ended log down in the background; until it is done its size counts as what it will be. */
    private shrink(entry: LogEntry): void {
        entry.bytes = SHRUNK_LOG_BYTES;
        entry.shrinking = shrinkEndedLog(entry, this.maxBytes).then(
            size => {
                entry.bytes = size;
            },
            () => {
                // Unreadable or gone (removed by hand): it stays counted as cut; its task's expiry removes the entry.
            },
        );
        void entry.shrinking.finally(() => (entry.shrinking = undefined));
    }

    /** Resolves once every log being cut down is final (the tests wait on it). */
    async settled(): Promise<void> {
        await Promise.all([...this.entries].map(entry => entry.shrinking));
    }

    /** What the running logs hold, measured at most once per RUNNING_SIZE_REUSE_MS. */
    private runningSize(now: number): number {
        if (now - this.runningMeasuredAt >= RUNNING_SIZE_REUSE_MS) {
            this.runningMeasuredAt = now;
            this.runningBytes = 0;
            for (const entry of this.entries) {
                if (entry.running) {
                    entry.measuredBytes = sizeOf(entry.path);
                    this.runningBytes += entry.measuredBytes;
                }
            }
        }
        return this.runningBytes;
    }

    /** Stops the expiry timer; a folder this made is removed with every log in it. */
    close(): void {
        this.clock.clearTimeout(this.timer);
        this.timer = undefined;
        if (!this.owned) {
            return;
        }
        const staying = [...this.entries].filter(entry => entry.letGo);
        if (staying.length === 0) {
            rmSync(this.dir, { recursive: true, force: true });
            return;
        }
        // Runs let go for the next server keep their files (and the folder, which the next server's
        // sweep removes once no job names it: leftovers.ts); the other logs go now.
        for (const entry of this.entries) {
            if (!entry.letGo) {
                this.remove(entry, 'the server stopped');
            }
        }
    }

    private remove(entry: LogEntry, why: string): void {
        this.entries.delete(entry);
        entry.gone = why;
        for (const taskId of entry.tasks) {
            this.byTask.delete(taskId);
        }
        const unlink = (): void => {
            try {
                unlinkSync(entry.path);
            } catch {
                // Already gone: nothing to free.
            }
        };
        // A log being cut down is deleted once that is done (Windows cannot delete an open file).
        if (entry.shrinking) {
            void entry.shrinking.finally(unlink);
        } else {
            unlink();
        }
    }

    /** One timer, at the next expiry. */
    private arm(): void {
        let next = Infinity;
        for (const entry of this.entries) {
            if (entry.expiresAt !== undefined && entry.expiresAt < next) {
                next = entry.expiresAt;
            }
        }
        if (next === this.timerAt) {
            return;
        }
        this.clock.clearTimeout(this.timer);
        this.timer = undefined;
        this.timerAt = next;
        if (next !== Infinity) {
            this.timer = this.clock.setTimeout(sweepLogs, Math.max(0, next - this.clock.now()), this, true);
        }
    }

    /** @internal the expiry timer fired. */
    expire(): void {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.sweep();
    }
}

function sweepLogs(logs: CommandLogs): void {
    logs.expire();
}

function sizeOf(path: string): number {
    try {
        return statSync(path).size;
    } catch {
        return 0;
    }
}
