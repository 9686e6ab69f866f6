import { sleep as sleepOnSignal } from '../tools/types.js';

/**
 * What runs in this process for one task. The AbortController is made on the first read of
 * `signal`: an AbortController is an EventTarget of some 800 bytes and several µs, and a tool
 * that finishes without waiting never needs one.
 */
export class LocalWork {
    private controller?: AbortController;
    private reason?: Error;
    private sleeper?: Sleeper;
    /** Input requests (elicitation, sampling) waiting for an answer. */
    pendingInput = 0;
    /** Undoes what the task set up outside itself (an external job's watch). */
    release?: () => void;
    /** Sub-tasks started so far (reserved before the store call, so concurrent spawns count). */
    children = 0;
    /** The tool's code has returned or thrown: there is nothing left to abort. */
    returned = false;

    constructor(
        readonly clientKey: string,
        /** 0 for a task a client started, parent's + 1 for a sub-task. */
        readonly depth: number,
        readonly parentTaskId?: string,
    ) {}

    get signal(): AbortSignal {
        if (!this.controller) {
            this.controller = new AbortController();
            if (this.reason) {
                this.controller.abort(this.reason);
            }
        }
        return this.controller.signal;
    }

    get stopped(): boolean {
        return this.reason !== undefined;
    }

    /** ctx.sleep: one pending wait is kept on the work itself, so stopping needs no listener. */
    sleep(ms: number): Promise<void> {
        if (this.reason) {
            return Promise.reject(this.reason);
        }
        if (this.sleeper) {
            // A second wait at the same time: rare enough for the signal-based path.
            return sleepOnSignal(ms, this.signal);
        }
        return new Promise<void>((resolve, reject) => {
            this.sleeper = { timer: setTimeout(wakeSleeper, ms, this), resolve, reject };
        });
    }

    /** @internal the timer of a sleep fired. */
    woke(): void {
        const sleeper = this.sleeper;
        this.sleeper = undefined;
        sleeper?.resolve();
    }

    /** Stops the work once; later calls keep the first reason. */
    stop(reason: Error): void {
        if (this.reason) {
            return;
        }
        this.reason = reason;
        this.release?.();
        const sleeper = this.sleeper;
        if (sleeper) {
            this.sleeper = undefined;
            clearTimeout(sleeper.timer);
            sleeper.reject(reason);
        }
        this.controller?.abort(reason);
    }
}

interface Sleeper {
    timer: NodeJS.Timeout;
    resolve(): void;
    reject(reason: Error): void;
}

/** One function for every sleeping task's timer (its argument says whose), instead of a closure each. */
function wakeSleeper(work: LocalWork): void {
    work.woke();
}

/** The tasks running here, with an index of children by parent so a parent's end finds them at once. */
export class LocalTasks {
    private readonly byId = new Map<string, LocalWork>();
    private readonly childrenOf = new Map<string, Set<string>>();

    get size(): number {
        return this.byId.size;
    }

    get(taskId: string): LocalWork | undefined {
        return this.byId.get(taskId);
    }

    has(taskId: string): boolean {
        return this.byId.has(taskId);
    }

    add(taskId: string, work: LocalWork): void {
        this.byId.set(taskId, work);
        if (work.parentTaskId) {
            let set = this.childrenOf.get(work.parentTaskId);
            if (!set) {
                set = new Set();
                this.childrenOf.set(work.parentTaskId, set);
            }
            set.add(taskId);
        }
    }

    remove(taskId: string): LocalWork | undefined {
        const work = this.byId.get(taskId);
        if (!work) {
            return undefined;
        }
        this.byId.delete(taskId);
        const parent = work.parentTaskId;
        const siblings = parent ? this.childrenOf.get(parent) : undefined;
        if (siblings) {
            siblings.delete(taskId);
            if (siblings.size === 0) {
                this.childrenOf.delete(parent!);
            }
        }
        return work;
    }

    /** Ids of the tasks running here whose parent is `parentTaskId`. */
    childrenHere(parentTaskId: string): string[] {
        const set = this.childrenOf.get(parentTaskId);
        return set ? [...set] : [];
    }

    entries(): IterableIterator<[string, LocalWork]> {
        return this.byId.entries();
    }

    ids(): string[] {
        return [...this.byId.keys()];
    }

    clear(): void {
        this.byId.clear();
        this.childrenOf.clear();
    }
}
