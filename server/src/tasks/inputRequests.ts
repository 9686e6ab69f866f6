import { isTerminal, type Disposable, type TaskStore } from './types.js';

/** One input request a task waits on, as `tasks/get` shows it under `inputRequests`. */
export interface InputRequest {
    method: string;
    params: Record<string, unknown>;
}

interface Waiting extends InputRequest {
    resolve(answer: Record<string, unknown>): void;
    reject(reason: unknown): void;
}

interface RootInputs {
    capabilities: Record<string, unknown>;
    waiting: Map<string, Waiting>;
    issued: number;
}

/** What a run looks like from here: its id and its parent's. */
interface RunLike {
    readonly taskId: string;
    readonly parent?: RunLike;
}

/**
 * The input requests of tasks created by 2026-07-28 clients (SEP-2663): instead of a request to
 * the client, a task's elicitation or sampling waits here, `tasks/get` lists it in the task's
 * `inputRequests`, and `tasks/update` answers it. A sub-task's requests show on the task its
 * client created (the only one the client knows). Keys are never reused within a task.
 *
 * Held in the process that runs the task: with a shared store, `tasks/get` and `tasks/update`
 * for such a task must reach this process (see docs/PROTOCOL.md).
 */
export class TaskInputRequests {
    private readonly roots = new Map<string, RootInputs>();
    private readonly subscription: Disposable;

    constructor(store: TaskStore) {
        this.subscription = store.onEvent(event => {
            if (event.type === 'deleted') {
                this.release(event.taskId);
            } else if (event.type === 'status' && isTerminal(event.task.status)) {
                this.release(event.task.taskId);
            }
        });
    }

    /** A task of a stateless client: its input goes through inputRequests. */
    adopt(taskId: string, capabilities: Record<string, unknown>): void {
        this.roots.set(taskId, { capabilities, waiting: new Map(), issued: 0 });
    }

    /** Whether `run` (or the task that started it) belongs to a stateless client. */
    handles(run: RunLike): boolean {
        return this.rootOf(run) !== undefined;
    }

    /** Waits for the client's answer to one request; rejects when `signal` aborts. */
    ask(run: RunLike, capability: 'elicitation' | 'sampling', request: InputRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
        const root = this.rootOf(run);
        if (!root) {
            return Promise.reject(new Error('Not a task of a stateless client'));
        }
        if (root.capabilities[capability] === undefined) {
            return Promise.reject(new Error(`The client that started this task did not declare the ${capability} capability, so it cannot be asked (${request.method})`));
        }
        if (signal.aborted) {
            return Promise.reject(signal.reason);
        }
        const key = `${capability}-${++root.issued}`;
        return new Promise((resolve, reject) => {
            const onAbort = () => {
                root.waiting.delete(key);
                reject(signal.reason);
            };
            signal.addEventListener('abort', onAbort, { once: true });
            root.waiting.set(key, {
                ...request,
                resolve: answer => {
                    signal.removeEventListener('abort', onAbort);
                    resolve(answer);
                },
                reject,
            });
        });
    }

    /** The outstanding requests of a task, by key; undefined when this process holds none for it. */
    pending(taskId: string): Record<string, InputRequest> | undefined {
        const root = this.roots.get(taskId);
        if (!root) {
            return undefined;
        }
        const out: Record<string, InputRequest> = {};
        for (const [key, { method, params }] of root.waiting) {
            out[key] = { method, params };
        }
        return out;
    }

    /** Answers outstanding requests; keys not outstanding (unknown, answered, malformed answers) are ignored, as SEP-2663 asks. */
    answer(taskId: string, responses: Record<string, unknown>): number {
        const root = this.roots.get(taskId);
        let answered = 0;
        for (const [key, value] of Object.entries(responses)) {
            const waiting = root?.waiting.get(key);
            if (waiting && typeof value === 'object' && value !== null && !Array.isArray(value)) {
                root!.waiting.delete(key);
                waiting.resolve(value as Record<string, unknown>);
                answered++;
            }
        }
        return answered;
    }

    dispose(): void {
        this.subscription.dispose();
        this.roots.clear();
    }

    private release(taskId: string): void {
        this.roots.delete(taskId);
    }

    private rootOf(run: RunLike): RootInputs | undefined {
        let top = run;
        while (top.parent) {
            top = top.parent;
        }
        return this.roots.get(top.taskId);
    }
}
