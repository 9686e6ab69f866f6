import type { Clock, ClockTimer } from '../util/clock.js';

/** How long a task's requests wait for its client to name it before they go anyway. */
export const UNSEEN_GRACE_MS = 2000;

interface Unseen {
    taskId: string;
    /** When the task was created (the CreateTaskResult follows within microseconds). */
    at: number;
    /** Requests waiting for the client to have seen the task. */
    waiting?: Set<() => void>;
    timer?: ClockTimer;
}

/**
 * In a session, a task's requests to the client (elicitation/create, sampling/createMessage) wait
 * until the client has seen the task: until it sends a message naming the task (its first
 * tasks/get, tasks/result, tasks/cancel), which it can only do after reading the CreateTaskResult.
 * On stdio the order on the wire was already right, but a client that reads the CreateTaskResult,
 * the status notification and the request in one chunk may dispatch the request before it has
 * taken up the result; over HTTP the request (GET stream) can even arrive before the result (POST
 * response). The official ext-tasks client then fails to match it (InputCorrelationError:
 * zero-matches) and answers "cancel". Every client must name the task to get its result, so
 * nothing waits for long; one that never does gets the request after UNSEEN_GRACE_MS.
 */
export class UnseenTasks {
    private readonly unseen = new Map<string, Unseen>();
    /** The entries in creation order, for forgetStale (see StaleQueue). */
    private readonly byAge = new StaleQueue();

    constructor(
        private readonly clock: Clock,
        private readonly graceMs = UNSEEN_GRACE_MS,
    ) {}

    /** How many tasks are held: not named yet, and within the grace or waited on. */
    get size(): number {
        return this.unseen.size;
    }

    /** A task this client is about to hear of in a CreateTaskResult. */
    introduce(taskId: string): void {
        this.forgetStale();
        const entry: Unseen = { taskId, at: this.clock.now() };
        this.unseen.set(taskId, entry);
        this.byAge.push(entry);
    }

    /** A message from the client: naming a task (`params.taskId`) shows it has seen it. */
    seen(params: Record<string, unknown> | undefined): void {
        if (this.unseen.size > 0 && typeof params?.taskId === 'string') {
            this.release(params.taskId);
        }
    }

    /**
     * Undefined when a request for `taskId` may go now; else a promise that resolves when it may,
     * or rejects with the signal's reason.
     */
    whenSeen(taskId: string, signal: AbortSignal): Promise<void> | undefined {
        const entry = this.unseen.get(taskId);
        const left = entry ? entry.at + this.graceMs - this.clock.now() : 0;
        if (!entry || left <= 0) {
            return undefined;
        }
        return new Promise((resolve, reject) => {
            const go = () => {
                signal.removeEventListener('abort', stop);
                resolve();
            };
            const stop = () => {
                entry.waiting?.delete(go);
                reject(signal.reason);
            };
            signal.addEventListener('abort', stop, { once: true });
            (entry.waiting ??= new Set()).add(go);
            entry.timer ??= this.clock.setTimeout(id => this.release(id), left, taskId, true);
        });
    }

    /** Lets every request of the task go; what comes later goes at once. */
    release(taskId: string): void {
        const entry = this.unseen.get(taskId);
        if (!entry) {
            return;
        }
        this.unseen.delete(taskId);
        this.clock.clearTimeout(entry.timer);
        for (const go of entry.waiting ?? []) {
            go();
        }
    }

    /** Ends every wait: the connection is closing, and its requests fail on their own. */
    dispose(): void {
        for (const taskId of [...this.unseen.keys()]) {
            this.release(taskId);
        }
    }

    /** Entries past the grace with nothing waiting: tasks whose client never named them and that asked nothing. */
    private forgetStale(): void {
        const cutoff = this.clock.now() - this.graceMs;
        for (let entry = this.byAge.oldest(); entry !== undefined && entry.at <= cutoff; entry = this.byAge.oldest()) {
            this.byAge.shift();
            // Released meanwhile, or waited on: then its timer releases it when the grace is over.
            if (this.unseen.get(entry.taskId) === entry && !entry.waiting?.size) {
                this.unseen.delete(entry.taskId);
            }
        }
    }
}

/**
 * The entries in creation order, oldest first: an array read from a moving head. Saves a walk
 * over the Map from its start on every task created: a Map keeps the slots of deleted entries
 * until it grows again, and every walk stepped over them all (a fifth to a third of the stdio
 * bench's task creation CPU, with tens of thousands of tasks a client never named).
 */
class StaleQueue {
    private items: (Unseen | undefined)[] = [];
    private head = 0;

    push(entry: Unseen): void {
        this.items.push(entry);
    }

    oldest(): Unseen | undefined {
        return this.items[this.head];
    }

    shift(): void {
        this.items[this.head++] = undefined;
        // Drops the read part once it is most of the array, so the array stays at most twice the entries.
        if (this.head >= 1024 && this.head * 2 >= this.items.length) {
            this.items = this.items.slice(this.head);
            this.head = 0;
        }
    }
}
