import type { Clock, ClockTimer } from '../clock.js';

interface Followed {
    /** When the creating client last asked about the task (created, tasks/get, a tasks/result ending). */
    seenAt: number;
    /** Its tasks/result requests still open: a client waiting on one is following the task. */
    waiting: number;
}

/**
 * Notices tasks their creating client stopped following. VS Code polls `tasks/get` at the task's
 * pollInterval and never sends `tasks/cancel`, so a stopped chat request shows only as polls that
 * end; a task nobody has asked about for `afterMs` (and nobody waits on) is handed to `onAbandoned`.
 * Only tasks of a task-augmented `tools/call` are watched: a background task (`start_<tool>`) is
 * meant to run while nobody polls. The owner's view does not count: watching is not following.
 */
export class AbandonWatch {
    private readonly tasks = new Map<string, Followed>();
    private timer?: ClockTimer;

    constructor(
        readonly afterMs: number,
        private readonly clock: Clock,
        private readonly onAbandoned: (taskId: string) => void,
    ) {}

    /** How often the sweep looks: a tenth of the window, so a task goes at most 10 % late. */
    get sweepMs(): number {
        return Math.max(100, Math.round(this.afterMs / 10));
    }

    watch(taskId: string): void {
        this.tasks.set(taskId, { seenAt: this.clock.now(), waiting: 0 });
        this.timer ??= this.clock.setInterval(() => this.sweep(), this.sweepMs, true);
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
        const deadline = this.clock.now() - this.afterMs;
        for (const [taskId, followed] of [...this.tasks]) {
            if (followed.waiting === 0 && followed.seenAt <= deadline) {
                this.forget(taskId);
                this.onAbandoned(taskId);
            }
        }
    }
}

function noop(): void {}
