import { errorMessage, type Logger } from '../log.js';
import { RpcError } from '../rpc/errors.js';
import type { RequestAbort } from '../rpc/requestAbort.js';
import type { Transport } from '../rpc/transport.js';
import { SpawnError } from '../tools/subtasks.js';
import { sleep, textResult, type CallToolResult, type ToolContext, type ToolDefinition } from '../tools/types.js';
import type { McpSession } from './session.js';

/**
 * What a tool called without `task` gets. A class, so `signal` can be a getter on the prototype
 * (an object literal with a getter is built slowly, on every call): a tool that never looks at its
 * signal (greet) costs no AbortController. The functions are own properties, so destructuring works.
 */
class InlineContext implements ToolContext {
    constructor(
        private readonly abort: RequestAbort,
        readonly log: Logger,
        readonly progress: ToolContext['progress'],
        readonly elicit: ToolContext['elicit'],
        readonly createMessage: ToolContext['createMessage'],
        readonly spawn: ToolContext['spawn'],
    ) {}

    get signal(): AbortSignal {
        return this.abort.signal;
    }

    sleep(ms: number): Promise<void> {
        return sleep(ms, this.abort.signal);
    }
}

/** A call without `task`: the work is tied to this request and its response stream. */
export async function runInline(session: McpSession, tool: ToolDefinition, args: Record<string, unknown>, progressToken: string | number | undefined, reply: Transport, abort: RequestAbort): Promise<CallToolResult> {
    const ask = async (method: string, request: object) => session.request(method, request as Record<string, unknown>, { signal: abort.signal, via: reply });
    const ctx = new InlineContext(
        abort,
        session.services.log,
        (progress, total, message) => {
            if (progressToken !== undefined && !abort.aborted) {
                reply.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress, total, message } });
            }
        },
        async request => (await ask('elicitation/create', request)) as never,
        async request => (await ask('sampling/createMessage', request)) as never,
        async toolName => {
            throw new SpawnError('not_a_task', `Cannot start sub-task ${toolName}: only a tool running as a task can start sub-tasks (call it with "task")`);
        },
    );
    // The suites wait for this line: from here the work is tied to the request.
    session.services.log.debug(`[session] tools/call ${tool.name} running inline`);
    try {
        return await tool.run!(args, ctx);
    } catch (err) {
        if (err instanceof RpcError) {
            throw err;
        }
        return textResult(`Tool ${tool.name} failed: ${errorMessage(err)}`, true);
    }
}
