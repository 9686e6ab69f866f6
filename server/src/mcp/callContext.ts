import type { Logger } from '../util/log.js';
import type { RequestAbort } from '../rpc/requestAbort.js';
import type { Transport } from '../rpc/transport.js';
import { SpawnError } from '../tools/subtasks.js';
import { sleep, type ToolContext } from '../tools/types.js';

/**
 * What a tool called in its request (not as a task) gets, in either revision: its signal, sleep,
 * progress on the request's stream and the refusal to spawn are the same; how it asks its client
 * for input is the revision's, in a subclass (a 2025-11-25 session sends the client a request,
 * session/adapter.ts; a 2026-07-28 call ends its round with an InputRequiredResult,
 * rev2026/rounds.ts). A class, so `signal` can be a getter on the prototype (an object literal
 * with a getter is built slowly, on every call): a tool that never looks at its signal (greet)
 * costs no AbortController, and one object per call.
 */
export abstract class CallContext implements ToolContext {
    constructor(
        protected readonly abort: RequestAbort,
        readonly log: Logger,
        protected readonly reply: Transport,
        private readonly progressToken: string | number | undefined,
        readonly clientKey: string,
    ) {}

    /** Why this call cannot start sub-tasks, appended to the SpawnError's message. */
    protected abstract readonly notATask: string;

    abstract elicit(params: Parameters<ToolContext['elicit']>[0]): ReturnType<ToolContext['elicit']>;

    abstract createMessage(params: Parameters<ToolContext['createMessage']>[0]): ReturnType<ToolContext['createMessage']>;

    get signal(): AbortSignal {
        return this.abort.signal;
    }

    sleep(ms: number): Promise<void> {
        return sleep(ms, this.abort.signal);
    }

    whenStopped(listener: (reason: unknown) => void): () => void {
        const { abort } = this;
        abort.whenAborted(listener);
        return () => abort.offAborted(listener);
    }

    get progressWatched(): boolean {
        return this.progressToken !== undefined;
    }

    progress(progress: number, total?: number, message?: string): void {
        const { progressToken } = this;
        if (progressToken !== undefined && !this.abort.aborted) {
            this.reply.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress, total, message } });
        }
    }

    closeConnection(): boolean {
        return this.reply.closeConnection?.() ?? false;
    }

    async spawn(toolName: string): Promise<never> {
        throw new SpawnError('not_a_task', `Cannot start sub-task ${toolName}: only a tool running as a task can start sub-tasks${this.notATask}`);
    }
}
