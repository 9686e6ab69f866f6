import { errorMessage, type Logger } from '../util/log.js';
import type { Disposable, TaskStore } from './types.js';

/** One input request a task waits on, as `tasks/get` shows it under `inputRequests`. */
export interface InputRequest {
    method: string;
    params: Record<string, unknown>;
}

interface Waiting extends InputRequest {
    resolve(answer: Record<string, unknown>): void;
}

interface RootInputs {
    capabilities: Record<string, unknown>;
    ttlMs: number;
    waiting: Map<string, Waiting>;
    issued: number;
}

/** What a run looks like from here: its id and its parent's. */
interface RunLike {
    readonly taskId: string;
    readonly parent?: RunLike;
}

/** A task's open input requests as some process knows them; `here` when this process runs the task. */
export interface OpenInputs {
    requests?: Record<string, InputRequest>;
    here: boolean;
}

/**
 * The input requests of tasks created by 2026-07-28 clients (SEP-2663): instead of a request to
 * the client, a task's elicitation or sampling waits here, `tasks/get` lists it in the task's
 * `inputRequests`, and `tasks/update` answers it. A sub-task's requests show on the task its
 * client created (the only one the client knows). Keys are never reused within a task.
 *
 * The waiting itself is in the process that runs the task. A shared store (Redis) also holds the
 * open requests, so `tasks/get` on any replica lists them, and carries answers given on any
 * replica to this one (`input` events).
 */
export class TaskInputRequests {
    private readonly roots = new Map<string, RootInputs>();
    private readonly subscription: Disposable;

    constructor(
        private readonly store: TaskStore,
        private readonly log: Logger,
    ) {
        // Only answers given on another replica come this way; a task's end releases its requests
        // through TaskRun.stop (release), whoever decided it.
        this.subscription = store.onEvent(event => {
            if (event.type === 'input') {
                this.answerHere(event.taskId, event.responses);
            }
        });
    }

    /** A task of a stateless client: its input goes through inputRequests. */
    adopt(taskId: string, capabilities: Record<string, unknown>, ttlMs: number): void {
        this.roots.set(taskId, { capabilities, ttlMs, waiting: new Map(), issued: 0 });
    }

    /** Whether `run` (or the task that started it) belongs to a stateless client. */
    handles(run: RunLike): boolean {
        return this.rootOf(run) !== undefined;
    }

    /** Waits for the client's answer to one request; rejects when `signal` aborts. */
    ask(run: RunLike, capability: 'elicitation' | 'sampling', request: InputRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
        const rootId = this.rootIdOf(run);
        const root = this.roots.get(rootId);
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
                this.share(rootId, root);
                reject(signal.reason);
            };
            signal.addEventListener('abort', onAbort, { once: true });
            root.waiting.set(key, {
                ...request,
                resolve: answer => {
                    signal.removeEventListener('abort', onAbort);
                    resolve(answer);
                },
            });
            this.share(rootId, root);
        });
    }

    /** The open requests of a task: this process's when it runs it, else (a shared store, status input_required) the store's. */
    async open(taskId: string, inputRequired: boolean): Promise<OpenInputs> {
        const root = this.roots.get(taskId);
        if (root) {
            return { requests: snapshot(root), here: true };
        }
        return { requests: inputRequired ? await this.store.getInputRequests?.(taskId) : undefined, here: false };
    }

    /**
     * Answers open requests; keys not open (unknown, answered, malformed answers) are ignored, as
     * SEP-2663 asks. A task running in another process gets them through the store.
     */
    async answer(taskId: string, responses: Record<string, unknown>): Promise<void> {
        if (this.roots.has(taskId)) {
            this.answerHere(taskId, responses);
        } else {
            await this.store.publishInputResponses?.(taskId, responses);
        }
    }

    dispose(): void {
        this.subscription.dispose();
        this.roots.clear();
    }

    private answerHere(taskId: string, responses: Record<string, unknown>): void {
        const root = this.roots.get(taskId);
        if (!root) {
            return;
        }
        let answered = false;
        for (const [key, value] of Object.entries(responses)) {
            const waiting = root.waiting.get(key);
            if (waiting && typeof value === 'object' && value !== null && !Array.isArray(value)) {
                root.waiting.delete(key);
                waiting.resolve(value as Record<string, unknown>);
                answered = true;
            }
        }
        if (answered) {
            this.share(taskId, root);
        }
    }

    /** Tells a shared store what is open now (nothing to do for a memory store); a released task's last aborted asks tell nothing. */
    private share(taskId: string, root: RootInputs): void {
        if (this.roots.get(taskId) !== root) {
            return;
        }
        const open = root.waiting.size > 0 ? snapshot(root) : undefined;
        this.store.setInputRequests?.(taskId, open, root.ttlMs).catch(err => this.log.warn(`[tasks] input requests of ${taskId} not shared: ${errorMessage(err)}`));
    }

    /** The task ended (TaskRun.stop): its open requests go, here and in a shared store. */
    release(taskId: string): void {
        if (this.roots.delete(taskId)) {
            this.store.setInputRequests?.(taskId, undefined, 0).catch(() => undefined);
        }
    }

    private rootIdOf(run: RunLike): string {
        let top = run;
        while (top.parent) {
            top = top.parent;
        }
        return top.taskId;
    }

    private rootOf(run: RunLike): RootInputs | undefined {
        return this.roots.get(this.rootIdOf(run));
    }
}

function snapshot(root: RootInputs): Record<string, InputRequest> {
    const out: Record<string, InputRequest> = {};
    for (const [key, { method, params }] of root.waiting) {
        out[key] = { method, params };
    }
    return out;
}
