import type { Logger } from '../log.js';
import type { RequestAbort } from '../rpc/requestAbort.js';
import type { Transport } from '../rpc/transport.js';
import { SpawnError } from '../tools/subtasks.js';
import { sleep, type ToolContext } from '../tools/types.js';

type ElicitParams = Parameters<ToolContext['elicit']>[0];
type SamplingParams = Parameters<ToolContext['createMessage']>[0];

/**
 * How a call running in its request asks its client for input: the revision's part of the tool
 * context. A 2025-11-25 session sends the client a request on the call's response stream; a
 * 2026-07-28 call ends its round with an InputRequiredResult (stateless/rounds.ts).
 */
export interface InputAsker {
    elicit(params: ElicitParams): ReturnType<ToolContext['elicit']>;
    createMessage(params: SamplingParams): ReturnType<ToolContext['createMessage']>;
    /** Multi round-trip input (2026-07-28 only). */
    readonly input?: ToolContext['input'];
    /** What the request declared (2026-07-28 only: a session's client declared them in initialize). */
    readonly clientCapabilities?: Record<string, unknown>;
    /** Why this call cannot start sub-tasks, for the SpawnError. */
    readonly notATask: string;
}

/**
 * What a tool called in its request (not as a task) gets, in either revision. A class, so `signal`
 * can be a getter on the prototype (an object literal with a getter is built slowly, on every
 * call): a tool that never looks at its signal (greet) costs no AbortController.
 */
export class CallContext implements ToolContext {
    constructor(
        private readonly abort: RequestAbort,
        readonly log: Logger,
        private readonly reply: Transport,
        private readonly progressToken: string | number | undefined,
        private readonly asker: InputAsker,
    ) {}

    get signal(): AbortSignal {
        return this.abort.signal;
    }

    /** A getter, so a tool may take it unbound (`const ask = ctx.input`). */
    get input(): ToolContext['input'] {
        return this.asker.input;
    }

    get clientCapabilities(): Record<string, unknown> | undefined {
        return this.asker.clientCapabilities;
    }

    sleep(ms: number): Promise<void> {
        return sleep(ms, this.abort.signal);
    }

    progress(progress: number, total?: number, message?: string): void {
        const { progressToken } = this;
        if (progressToken !== undefined && !this.abort.aborted) {
            this.reply.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress, total, message } });
        }
    }

    elicit(params: ElicitParams): ReturnType<ToolContext['elicit']> {
        return this.asker.elicit(params);
    }

    createMessage(params: SamplingParams): ReturnType<ToolContext['createMessage']> {
        return this.asker.createMessage(params);
    }

    async spawn(toolName: string): Promise<never> {
        throw new SpawnError('not_a_task', `Cannot start sub-task ${toolName}: only a tool running as a task can start sub-tasks${this.asker.notATask}`);
    }
}
