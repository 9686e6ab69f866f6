import { INPUT_REQUESTS_META_KEY, Methods } from '../../contract.js';
import { errorMessage, type Logger } from '../../util/log.js';
import { ErrorCodes, invalidParams, methodNotFound, RpcError } from '../../rpc/errors.js';
import { fromChat, optionalObject, progressTokenOf } from '../../rpc/params.js';
import type { RequestAbort } from '../../rpc/requestAbort.js';
import type { Transport } from '../../rpc/transport.js';
import type { InputCapability } from '../../tasks/hub.js';
import type { TaskRecord } from '../../tasks/types.js';
import { toWireTask } from '../../tasks/wire.js';
import { textResult, type CallToolResult, type ToolContext, type ToolDefinition } from '../../tools/types.js';
import { refusingTool } from '../../tools/arguments.js';
import { CallContext } from '../callContext.js';
import { ownerView, type Params, type PushChannel, type RequestContext, type Result, type Revision } from '../context.js';
import { onlyAsTaskText, type TaskTool, type TaskTools } from '../taskTools.js';
import { deferAfterFor, runDeferrable } from '../defer.js';

/**
 * A call in a 2025-11-25 session asks its client directly: a request on the call's response
 * stream (the answers come back as they are, as the SDK's server does).
 */
class SessionCallContext extends CallContext {
    protected readonly notATask = ' (call it with "task")';

    constructor(
        abort: RequestAbort,
        log: Logger,
        reply: Transport,
        progressToken: string | number | undefined,
        clientKey: string,
        private readonly push: PushChannel,
    ) {
        super(abort, log, reply, progressToken, clientKey);
    }

    async elicit(params: Parameters<ToolContext['elicit']>[0]) {
        return (await this.ask('elicitation', 'elicitation/create', params)) as never;
    }

    async createMessage(params: Parameters<ToolContext['createMessage']>[0]) {
        return (await this.ask('sampling', 'sampling/createMessage', params)) as never;
    }

    private ask(capability: InputCapability, method: string, params: object): Promise<Record<string, unknown>> {
        if (!this.push.supports(capability)) {
            // Never a request the client said it cannot answer: the tool fails with words instead.
            return Promise.reject(new Error(cannotAsk(capability)));
        }
        return this.push.request(method, params as Record<string, unknown>, { signal: this.abort.signal, via: this.reply });
    }
}

/** Why a plain call could not ask its client, for the model that called the tool. */
function cannotAsk(capability: InputCapability): string {
    const what = capability === 'elicitation' ? 'to ask the user a question (elicitation)' : 'to have a model answer a prompt (sampling)';
    return `This tool needed ${what}, but this client did not declare the ${capability} capability, so nothing was asked. Use a client that supports ${capability}, or a tool that does not ask`;
}

function forbiddenAsTask(name: string): RpcError {
    return methodNotFound(`Tool ${name} cannot run as a task (execution.taskSupport is "forbidden"); call it without "task"`);
}

/** A call without `task`: the work is tied to this request and its response stream. */
async function runInline(ctx: RequestContext, tool: ToolDefinition, args: Record<string, unknown>, params: Params): Promise<CallToolResult> {
    const { reply, abort, services } = ctx;
    const call = new SessionCallContext(abort, services.log, reply, progressTokenOf(params), ctx.identity.clientKey, ctx.push!);
    const deferAfterMs = deferAfterFor(ctx, tool);
    if (deferAfterMs !== undefined) {
        return runDeferrable(ctx, tool, args, call, deferAfterMs, runToolCode);
    }
    // The suites wait for this line: from here the work is tied to the request.
    services.log.debug(`[session] tools/call ${tool.name} running inline`);
    return runToolCode(tool, args, call);
}

/** Runs a tool's code; a throw (other than a protocol error) is the tool's error result. */
async function runToolCode(tool: ToolDefinition, args: Record<string, unknown>, call: ToolContext): Promise<CallToolResult> {
    try {
        return await tool.run!(args, call);
    } catch (err) {
        if (err instanceof RpcError) {
            throw err;
        }
        return textResult(`Tool ${tool.name} failed: ${errorMessage(err)}`, true);
    }
}

/**
 * MCP 2025-11-25 (and the earlier revisions it negotiates down to): a session opened by
 * `initialize`, a task asked for with `task` in tools/call, input asked by server requests.
 */
export const SESSION_REVISION: Revision = {
    name: '2025-11-25',

    missing(method) {
        throw methodNotFound(`Method not found: ${method}`);
    },

    admit(ctx, method) {
        // MCP lifecycle: before initialize has been answered, only ping is served (HTTP has no
        // session before then; this holds the stdio pipe to the same rule).
        if (ctx.push!.protocolVersion === undefined && method !== 'initialize' && method !== 'ping') {
            throw new RpcError(ErrorCodes.InvalidRequest, `Server not initialized: send initialize first (only ping is answered before it), not ${method}`);
        }
        // The owner answers a 2026-07-28 task's inputRequests, as its client would; not a
        // 2025-11-25 method for anyone else.
        if (method === Methods.tasksUpdate && !ctx.identity.isOwner) {
            throw methodNotFound(`Method not found: ${Methods.tasksUpdate}`);
        }
    },

    complete: result => result,

    cacheable: result => result,

    toolListing: tools => ({ tools }),

    callTaskTool(ctx, taskTools: TaskTools, tool: TaskTool, params) {
        if (optionalObject(params, 'task')) {
            throw forbiddenAsTask(tool.definition.name);
        }
        return taskTools.call(ctx, tool, optionalObject(params, 'arguments'), ctx.abort) as Promise<Record<string, unknown>>;
    },

    callsAsTask(ctx, tool, params) {
        const task = optionalObject(params, 'task');
        const ttl = task?.ttl;
        if (ttl !== undefined && ttl !== null && (typeof ttl !== 'number' || !(ttl >= 0))) {
            throw invalidParams('task.ttl must be a non-negative number of milliseconds');
        }
        // Negotiation errors come before anything runs (the SDK runs the tool first).
        if (task && tool.taskSupport === 'forbidden') {
            throw forbiddenAsTask(tool.name);
        }
        if (!task && tool.taskSupport === 'required') {
            throw methodNotFound(onlyAsTaskText(tool.name, ctx.services.taskTools !== undefined, 'send "task": {} with the call (execution.taskSupport is "required")'));
        }
        return task !== undefined;
    },

    async startTask(ctx, tool, args, params) {
        const ttl = optionalObject(params, 'task')?.ttl as number | null | undefined;
        const record = await ctx.services.runtime.createTask(ctx.identity, tool, args, {
            ttl: ttl ?? undefined,
            progressToken: progressTokenOf(params),
            chat: fromChat(params),
            onCreated: taskId => ctx.push!.announceAfter(taskId, ctx.abort),
        });
        return { task: toWireTask(record, ownerView(ctx)) };
    },

    refuseArguments(ctx, tool, result, asTask, params) {
        return asTask ? this.startTask(ctx, refusingTool(tool, result), {}, params) : (result as Result);
    },

    runInRequest: (ctx, tool, args, params) => runInline(ctx, tool, args, params) as Result,

    /**
     * The owner (the editor) also sees a 2026-07-28 client's task's open inputRequests, under
     * `_meta[INPUT_REQUESTS_META_KEY]`, so that it can answer them as it answers the elicitation
     * of a 2025-11-25 task; other clients get the spec's Task.
     */
    taskView(ctx, record: TaskRecord) {
        if (!ctx.identity.isOwner) {
            return toWireTask(record);
        }
        return ownerTask(ctx, record);
    },

    async cancelTask(ctx, taskId) {
        return toWireTask(await ctx.services.runtime.cancel(ctx.identity, taskId), ownerView(ctx));
    },
};

async function ownerTask(ctx: RequestContext, record: TaskRecord): Promise<Record<string, unknown>> {
    const task = toWireTask(record, ctx.services.runtime.ownerFacts);
    if (record.status === 'input_required') {
        const { requests } = await ctx.services.runtime.inputs.open(record.taskId, true);
        if (requests && Object.keys(requests).length > 0) {
            task._meta = { ...(task._meta as Record<string, unknown> | undefined), [INPUT_REQUESTS_META_KEY]: requests };
        }
    }
    return task;
}
