import { ErrorCodes, methodNotFound, RpcError } from '../../rpc/errors.js';
import { optionalObject, progressTokenOf } from '../../rpc/params.js';
import { isTerminal } from '../../tasks/types.js';
import type { CallToolResult, ToolContext, ToolDefinition } from '../../tools/types.js';
import { ownerView, type Params, type RequestContext, type Revision } from '../context.js';
import { deferAfterFor, runDeferrable } from '../defer.js';
import { META_CLIENT_CAPABILITIES } from '../../contract.js';
import { onlyAsTaskText } from '../taskTools.js';
import { hasTasksExtension, missingCapability, requireTasksExtension, TASKS_EXTENSION } from './envelope.js';
import { inRound, runPlainCall, type PausableCall, type RoundCallContext } from './rounds.js';
import { createTaskResult, detailedTask } from './taskView.js';

/** How long a client may reuse tools/list and server/discover (SEP-2549); a changed list is announced anyway. */
export const LIST_TTL_MS = 60_000;

/** Methods of 2025-11-25 that 2026-07-28 has not, and what to do instead. */
const REMOVED = new Map<string, string>([
    ['tasks/result', 'tasks/get carries the result'],
    ['tasks/list', 'keep the task ids you were given'],
    ['initialize', 'send server/discover, and _meta on every request'],
    ['ping', 'it was removed'],
    ['logging/setLevel', 'set the log level per request in _meta'],
]);

/** Methods a request may call only when it declares the tasks extension. */
const NEED_TASKS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

const stripped = new WeakMap<Record<string, unknown>, Record<string, unknown>>();
/** The 2025-11-25 listing without `execution.taskSupport`: in 2026-07-28 the server decides (see callsAsTask). */
function withoutExecution(tool: Record<string, unknown>): Record<string, unknown> {
    if (tool.execution === undefined) {
        return tool;
    }
    let out = stripped.get(tool);
    if (!out) {
        out = { ...tool };
        delete out.execution;
        stripped.set(tool, out);
    }
    return out;
}

/** A tools/call of a 2026-07-28 client, as the round machinery sees it. */
function pausable(ctx: RequestContext, tool: ToolDefinition, args: Record<string, unknown>, params: Params): PausableCall {
    const { runtime, log, requestStates } = ctx.services;
    return { tool, args, params, envelope: ctx.envelope!, clientKey: ctx.identity.clientKey, states: requestStates, log, clock: runtime.clock, progressToken: progressTokenOf(params) };
}

/** A deferrable call's tool code; a throw is made the tool's error result by runPlainCall (or fails its task, once deferred). */
const runTool = (tool: ToolDefinition, args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult> => tool.run!(args, ctx);

async function startTask(ctx: RequestContext, tool: ToolDefinition, args: Record<string, unknown>, params: Params): Promise<Record<string, unknown>> {
    let taskArgs = args;
    if (tool.gather) {
        // Input the task needs before it exists is asked first, in the call itself (SEP-2663 with SEP-2322).
        const gathered = await inRound(pausable(ctx, tool, args, params), round => tool.gather!(args, round.ask), ctx.abort);
        if ('inputRequired' in gathered) {
            return gathered.inputRequired;
        }
        taskArgs = { ...args, ...gathered.value };
    }
    const record = await ctx.services.runtime.createTask(ctx.identity, tool, taskArgs, { capabilities2026: ctx.envelope!.capabilities });
    return createTaskResult(record, ownerView(ctx));
}

/**
 * MCP 2026-07-28 with the tasks extension (SEP-2575, SEP-2663): each request on its own, its
 * client described by its `_meta`; results say their `resultType`; a call becomes a task when the
 * tool may run as one and the request declares the extension; input is asked by ending the round
 * with an InputRequiredResult (a task's, through its inputRequests and tasks/update).
 */
export const STATELESS_REVISION: Revision = {
    name: '2026-07-28',

    missing(method) {
        const instead = REMOVED.get(method);
        throw methodNotFound(instead === undefined ? `Method not found: ${method}` : `Method not found: ${method} is not part of protocol 2026-07-28 (${instead})`);
    },

    admit(ctx, method) {
        if (NEED_TASKS.has(method)) {
            requireTasksExtension(ctx.envelope!, method);
        }
    },

    complete: result => ({ resultType: 'complete', ...result }),

    /** The result's own caching hints when it has them (a 2026-07-28 server behind the gateway), else not cached: a 2025-11-25 server says nothing of how long its answer holds. */
    cacheable: result => ({ resultType: 'complete', ttlMs: 0, cacheScope: 'private', ...result }),

    toolListing: tools => ({ resultType: 'complete', tools: tools.map(withoutExecution), ttlMs: LIST_TTL_MS, cacheScope: 'public' }),

    async callTaskTool(ctx, taskTools, tool, params) {
        return { resultType: 'complete', ...(await taskTools.call(ctx, tool, optionalObject(params, 'arguments'), ctx.abort)) };
    },

    /** A "required" tool called without the extension is -32021. */
    callsAsTask(ctx, tool) {
        const asTask = tool.taskSupport !== 'forbidden' && hasTasksExtension(ctx.envelope!);
        if (!asTask && tool.taskSupport === 'required') {
            // Without the extension, by definition (asTask is false): -32021, in words for the model first.
            const protocolWay = `declare the ${TASKS_EXTENSION} extension in _meta["${META_CLIENT_CAPABILITIES}"].extensions`;
            throw missingCapability(onlyAsTaskText(tool.name, ctx.services.taskTools !== undefined, protocolWay), { extensions: { [TASKS_EXTENSION]: {} } });
        }
        return asTask;
    },

    startTask,

    /** Inline even for a client with the extension: a 2026-07-28 server answers a call with a task only when it chooses to. */
    refuseArguments: (_ctx, _tool, result) => ({ resultType: 'complete', ...result }),

    /**
     * Not async: a plain call's promise is the tool's own, one microtask hop from its answer. One
     * still running after --defer-after goes on as a task (defer.ts), as in a session.
     */
    runInRequest(ctx, tool, args, params) {
        const call = pausable(ctx, tool, args, params);
        if (tool.external) {
            throw new RpcError(ErrorCodes.InternalError, `Tool ${tool.name} has no inline form`);
        }
        const deferAfterMs = deferAfterFor(ctx, tool);
        const start = deferAfterMs === undefined ? undefined : (round: RoundCallContext) => runDeferrable(ctx, tool, args, round, deferAfterMs, runTool);
        return runPlainCall(call, ctx.reply, ctx.abort, start);
    },

    taskView: (ctx, record) => detailedTask(ctx.services.runtime, record, ownerView(ctx), 'complete'),

    /** An empty, idempotent acknowledgement (SEP-2663): cancelling an ended task is not an error. */
    async cancelTask(ctx, taskId) {
        const { runtime } = ctx.services;
        const record = await runtime.get(ctx.identity, taskId);
        if (!isTerminal(record.status)) {
            try {
                await runtime.cancel(ctx.identity, taskId);
            } catch (err) {
                // It ended meanwhile: still an acknowledgement.
                if (!(err instanceof RpcError && err.code === ErrorCodes.InvalidParams)) {
                    throw err;
                }
            }
        }
        return { resultType: 'complete' };
    },
};
