import type { Clock, ClockTimer } from '../clock.js';

interface Followed {
    /** When the creating client last asked about the task (created, tasks/get, a tasks/result ending). */
    seenAt: number;
    /** Its tasks/result requests still open: a client waiting on one is following the task. */
    waiting: number;
    /** How long it may go unasked. */
    afterMs: number;
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

    constructor(
        readonly afterMs: number,
        private readonly clock: Clock,
        private readonly onAbandoned: (taskId: string, afterMs: number) => void,
    ) {}

    /** How often the sweep looks: a tenth of the shortest window, so a task goes at most 10 % late. */
    get sweepMs(): number {
        return sweepFor(this.afterMs);
    }

    /** Watches a task, for `afterMs` without a question (default: the server's window). */
    watch(taskId: string, afterMs = this.afterMs): void {
        this.tasks.set(taskId, { seenAt: this.clock.now(), waiting: 0, afterMs });
        if (this.timer && sweepFor(afterMs) < this.timerMs) {
            this.stop();
        }
        if (!this.timer) {
            this.timerMs = Math.min(sweepFor(afterMs), ...[...this.tasks.values()].map(task => sweepFor(task.afterMs)));
            this.timer = this.clock.setInterval(() => this.sweep(), this.timerMs, true);
        }
    }

    /** The creating client asked about the task. */
    seen(taskId: string): void {
        const followed = this.tasks.get(taskId);
        if (followed) {
            followed.seenAt = this.clock.now();
        }
    }

    /** The creating client waits on tasks/result; the returned function ends the wait. */
    waiting(taskId: string): () => void {
        const followed = this.tasks.get(taskId);
        if (!followed) {
            return noop;
        }
        followed.waiting++;
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
        for (const [taskId, followed] of [...this.tasks]) {
            if (followed.waiting === 0 && followed.seenAt <= now - followed.afterMs) {
                this.forget(taskId);
                this.onAbandoned(taskId, followed.afterMs);
            }
        }
    }
}

function sweepFor(afterMs: number): number {
    return Math.max(100, Math.round(afterMs / 10));
}

function noop(): void {}
