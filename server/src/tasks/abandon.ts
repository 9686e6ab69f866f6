import type { Clock, ClockTimer } from '../util/clock.js';

interface Followed {
    /** When the creating client last asked about the task (created, tasks/get, a tasks/result ending). */
    seenAt: number;
    /** Its tasks/result requests still open: a client waiting on one is following the task. */
    waiting: number;
    /** How long it may go unasked before it is abandoned; 0: never. */
    afterMs: number;
    /** How long it may go unasked before its client counts as no longer waiting (missed polls); 0: not watched for that. */
    stoppedAfterMs: number;
    /** When the client was seen to stop waiting; undefined while it waits. */
    stoppedAt?: number;
}

/**
 * Notices tasks their creating client stopped following. VS Code polls `tasks/get` at the task's
 * pollInterval and never sends `tasks/cancel`, so a stopped chat request shows only as polls that
 * end; a task nobody has asked about for `afterMs` (and nobody waits on) is handed to `onAbandoned`.
 * Only tasks of a task-augmented `tools/call` are watched, and those of tools with their own
 * window (a command's `maxUnpolledMs`): a background task (`start_<tool>`) is otherwise meant to
 * run while nobody polls. The owner's view does not count: watching is not following.
 */
export class AbandonWatch {
    private readonly tasks = new Map<string, Followed>();
    private timer?: ClockTimer;
    private timerMs = Infinity;
    /** When the sweep is due: how late it comes is how long the server could not run. */
    private sweepDueAt = 0;

    constructor(
        readonly afterMs: number,
        private readonly clock: Clock,
        private readonly onAbandoned: (taskId: string, afterMs: number) => void,
        /** The client stopped waiting (`stopped`), or came back; the runtime decides what that does. */
        private readonly onStoppedWaiting: (taskId: string, stopped: boolean) => void = noop,
    ) {}

    /** How often the sweep looks: a tenth of the shortest window, so a task goes at most 10 % late. */
    get sweepMs(): number {
        return sweepFor(this.afterMs);
    }

    /**
     * Watches a task, for `afterMs` without a question (default: the server's window), and for
     * `stoppedAfterMs` (a few missed polls) before its client counts as no longer waiting.
     */
    watch(taskId: string, afterMs = this.afterMs, stoppedAfterMs = 0): void {
        this.tasks.set(taskId, { seenAt: this.clock.now(), waiting: 0, afterMs, stoppedAfterMs });
        const sweepMs = sweepOf({ afterMs, stoppedAfterMs });
        if (this.timer && sweepMs < this.timerMs) {
            this.stop();
        }
        if (!this.timer) {
            this.timerMs = Math.min(sweepMs, ...[...this.tasks.values()].map(sweepOf));
            this.timer = this.clock.setInterval(() => this.sweep(), this.timerMs, true);
            this.sweepDueAt = this.clock.now() + this.timerMs;
        }
    }

    /** The creating client asked about the task. */
    seen(taskId: string): void {
        const followed = this.tasks.get(taskId);
        if (followed) {
            followed.seenAt = this.clock.now();
            this.back(taskId, followed);
        }
    }

    /** When the task's client was seen to stop waiting (epoch ms), if it has. */
    stoppedAt(taskId: string): number | undefined {
        return this.tasks.get(taskId)?.stoppedAt;
    }


    /** The creating client waits on tasks/result; the returned function ends the wait. */
    waiting(taskId: string): () => void {
        const followed = this.tasks.get(taskId);
        if (!followed) {
            return noop;
        }
        followed.waiting++;
        this.back(taskId, followed);
        return () => {
            followed.waiting--;
            followed.seenAt = this.clock.now();
        };
    }

    forget(taskId: string): void {
        this.tasks.delete(taskId);
        if (this.tasks.size === 0) {
            this.stop();
        }
    }

    stop(): void {
        this.clock.clearInterval(this.timer);
        this.timer = undefined;
    }

    private sweep(): void {
        const now = this.clock.now();
        // A sweep that comes late found the server busy (spawning, a long task, the machine):
        // the polls sent meanwhile wait unread, and are read only after this sweep (timers run
        // before the loop reads sockets). That time is not the client's: every window is moved
        // on by it, so a busy server never makes a client that polls on time look gone.
        const late = now - this.sweepDueAt;
        this.sweepDueAt = now + this.timerMs;
        for (const [taskId, followed] of [...this.tasks]) {
            if (late > 0) {
                followed.seenAt += late;
            }
            if (followed.waiting > 0) {
                continue;
            }
            if (followed.afterMs > 0 && followed.seenAt <= now - followed.afterMs) {
                this.forget(taskId);
                this.onAbandoned(taskId, followed.afterMs);
            } else if (followed.stoppedAfterMs > 0 && followed.stoppedAt === undefined && followed.seenAt <= now - followed.stoppedAfterMs) {
                followed.stoppedAt = now;
                this.onStoppedWaiting(taskId, true);
            }
        }
    }

    /** A client that had stopped waiting asks again: it waits after all. */
    private back(taskId: string, followed: Followed): void {
        if (followed.stoppedAt !== undefined) {
            followed.stoppedAt = undefined;
            this.onStoppedWaiting(taskId, false);
        }
    }
}

/** The sweep a task needs: a tenth of its shortest window, so nothing is noticed more than 10 % late. */
function sweepOf(task: Pick<Followed, 'afterMs' | 'stoppedAfterMs'>): number {
    const windows = [task.afterMs, task.stoppedAfterMs].filter(ms => ms > 0);
    return sweepFor(windows.length ? Math.min(...windows) : 0);
}

function sweepFor(afterMs: number): number {
    return Math.max(100, Math.round(afterMs / 10));
}

function noop(): void {}
