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
        return new Promise((resolve, reject) => {
            // An aborted signal fires no more 'abort' events: waiting on it would never end.
            if (signal?.aborted) {
                reject(signal.reason);
                return;
            }
            let set = this.byTask.get(record.taskId);
            if (!set) {
                set = new Set();
                this.byTask.set(record.taskId, set);
            }
            const waiters = set;
            const undo = whileWaiting?.();
            const release = () => {
                waiters.delete(done);
                if (waiters.size === 0) {
                    this.byTask.delete(record.taskId);
                }
                signal?.removeEventListener('abort', onAbort);
                undo?.();
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

    wake(taskId: string): void {
        const set = this.byTask.get(taskId);
        if (set) {
            for (const done of [...set]) {
                done();
            }
        }
    }
}
