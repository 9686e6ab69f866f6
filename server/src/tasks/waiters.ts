import type { Clock } from '../util/clock.js';
import type { TaskRecord } from './types.js';

/**
 * Callers parked until a task changes (pending tasks/result, a parent joining its children).
 * Store events wake them; nothing polls.
 */
export class TaskWaiters {
    private readonly byTask = new Map<string, Set<() => void>>();

    constructor(private readonly read: (taskId: string) => Promise<TaskRecord | undefined>) {}

    get taskIds(): string[] {
        return [...this.byTask.keys()];
    }

    /**
     * Resolves at the next change of `record` (or at once if it changed already); rejects when
     * `signal` aborts. `whileWaiting` runs as the waiter parks and returns its undo.
     */
    next(record: TaskRecord, signal?: AbortSignal, whileWaiting?: () => () => void): Promise<void> {
        return this.park(record.taskId, signal, whileWaiting, done => {
            // Re-check after subscribing: the change may have landed before the waiter did.
            void this.read(record.taskId).then(
                now => {
                    if (!now || now.status !== record.status || now.lastUpdatedAt !== record.lastUpdatedAt) {
                        done();
                    }
                },
                // The store failed: wake up, so the caller's re-read reports why.
                () => done(),
            );
        });
    }

    /**
     * Parks a caller whose read met an unreachable store: the store's resync once it is back (or
     * any change of the task) wakes it, and so does `retryMs` on `clock`, in case the store came
     * back before the caller parked. Nothing is read meanwhile.
     */
    untilStoreBack(taskId: string, clock: Clock, retryMs: number, signal?: AbortSignal): Promise<void> {
        return this.park(taskId, signal, undefined, done => {
            const timer = clock.setTimeout(wakeUp, retryMs, done, true);
            return () => clock.clearTimeout(timer);
        });
    }

    /** Adds a waiter for `taskId`; `start` runs once it is parked and may return its own undo. */
    private park(taskId: string, signal: AbortSignal | undefined, whileWaiting: (() => () => void) | undefined, start: (done: () => void) => (() => void) | void): Promise<void> {
        return new Promise((resolve, reject) => {
            // An aborted signal fires no more 'abort' events: waiting on it would never end.
            if (signal?.aborted) {
                reject(signal.reason);
                return;
            }
            let set = this.byTask.get(taskId);
            if (!set) {
                set = new Set();
                this.byTask.set(taskId, set);
            }
            const waiters = set;
            const undo = whileWaiting?.();
            let stop: (() => void) | void = undefined;
            let released = false;
            // Once only: a late re-check may call done() after an abort released the waiter, and
            // by then the task's set may be another waiter's.
            const release = () => {
                if (released) {
                    return;
                }
                released = true;
                waiters.delete(done);
                if (waiters.size === 0 && this.byTask.get(taskId) === waiters) {
                    this.byTask.delete(taskId);
                }
                signal?.removeEventListener('abort', onAbort);
                undo?.();
                stop?.();
            };
            const done = () => {
                release();
                resolve();
            };
            // Not done(): resolving first made the reject a no-op, so an abandoned tasks/result
            // looped back into a new wait (on a signal that never fires again) until the task ended.
            const onAbort = () => {
                release();
                reject(signal?.reason ?? new Error('Aborted'));
            };
            waiters.add(done);
            signal?.addEventListener('abort', onAbort, { once: true });
            stop = start(done);
        });
    }

    wake(taskId: string): void {
        const set = this.byTask.get(taskId);
        if (set) {
            for (const done of [...set]) {
                done();
            }
        }
    }
}

function wakeUp(done: () => void): void {
    done();
}
