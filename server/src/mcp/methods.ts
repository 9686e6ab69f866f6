import { errorMessage } from '../util/log.js';
import { invalidParams, RpcError } from '../rpc/errors.js';
import { optionalObject, optionalString, requireString } from '../rpc/params.js';
import { argumentsErrorResult } from '../tools/arguments.js';

import { PARENT_TASK_META_KEY, relatedTaskMeta, toWireTask } from '../tasks/wire.js';
import { capabilitiesOf } from './capabilities.js';
import { CALL_WAIT_MS, LIST_WAIT_MS, ownerView, type Method, type Params, type RequestContext, type Result } from './context.js';

import { advertisedVersions } from './rev2026/envelope.js';
import { LIST_TTL_MS } from './rev2026/adapter.js';
import { listen } from './rev2026/listen.js';
import { META_SERVER_INFO, PROTOCOL_2025, PROTOCOL_2025_VERSIONS } from '../contract.js';

function initialize(ctx: RequestContext, params: Params): Result {
    const requested = requireString(params, 'protocolVersion');
    const clientInfo = optionalObject(params, 'clientInfo');
    const protocolVersion = PROTOCOL_2025_VERSIONS.includes(requested) ? requested : PROTOCOL_2025;
    ctx.push!.initialized(protocolVersion, optionalObject(params, 'capabilities') ?? {}, typeof clientInfo?.name === 'string' ? clientInfo.name.slice(0, 200) : undefined);
    const { serverInfo, instructions } = ctx.services;
    return { protocolVersion, capabilities: capabilitiesOf(ctx.services, '2025-11-25'), serverInfo, instructions };
}

/** 2026-07-28's introduction: what `initialize` answered, asked on its own (SEP-2575). */
function discover(ctx: RequestContext): Result {
    const { serverInfo, instructions } = ctx.services;
    const result: Record<string, unknown> = {
        resultType: 'complete',
        supportedVersions: advertisedVersions(ctx.services.only2026),
        capabilities: capabilitiesOf(ctx.services, '2026-07-28'),
        // Not to be reused while tools are on their way: the instructions and capabilities fill in as they come.
        ttlMs: ctx.services.toolsStarting?.pending() ? 0 : LIST_TTL_MS,
        cacheScope: 'public',
        _meta: { [META_SERVER_INFO]: serverInfo },
    };
    if (instructions !== undefined) {
        result.instructions = instructions;
    }
    return result;
}

function listTools(ctx: RequestContext): Result {
    const starting = ctx.services.toolsStarting;
    if (starting?.pending()) {
        return starting.wait(ctx.abort.signal, LIST_WAIT_MS).then(() => listing(ctx));
    }
    return listing(ctx);
}

function listing(ctx: RequestContext): Result {
    const { tools, taskTools } = ctx.services;
    return ctx.revision.toolListing(taskTools ? [...tools.list(), ...taskTools.list()] : tools.list());
}

/**
 * A task tool is always a plain call; another tool runs as a task or in the request, as the
 * revision decides (and checks) from the call. Not async: the checks throw before anything runs,
 * and a plain call's promise is the tool's own.
 */
function callTool(ctx: RequestContext, params: Params): Result {
    return callNamed(ctx, params, requireString(params, 'name'), false);
}

/** callTool for `name`; `waited`: the tools on their way are in (or the wait is over), so an unknown name is unknown. */
function callNamed(ctx: RequestContext, params: Params, name: string, waited: boolean): Result {
    const { tools, taskTools, toolsStarting } = ctx.services;
    const taskTool = taskTools?.get(name);
    if (taskTool) {
        return ctx.revision.callTaskTool(ctx, taskTools!, taskTool, params);
    }
    const tool = tools.get(name);
    // A hidden tool answers exactly like a missing one: it exists only for tasks to spawn.
    if (!tool || tool.hidden) {
        if (!waited && toolsStarting?.pending()) {
            // It may be a wrapped server's, still starting: asked again once they are in.
            return toolsStarting.wait(ctx.abort.signal, CALL_WAIT_MS).then(() => callNamed(ctx, params, name, true));
        }
        throw invalidParams(`Unknown tool: ${name}`);
    }
    const asTask = ctx.revision.callsAsTask(ctx, tool, params);
    const checked = tools.checkArguments(tool, optionalObject(params, 'arguments'));
    if ('problem' in checked) {
        return ctx.revision.refuseArguments(ctx, tool, argumentsErrorResult(checked.problem), asTask, params);
    }
    return asTask ? ctx.revision.startTask(ctx, tool, checked.args, params) : ctx.revision.runInRequest(ctx, tool, checked.args, params);
}

/** Not async: a view the revision makes at once (a session's) goes out without another microtask hop. */
function getTask(ctx: RequestContext, params: Params): Result {
    return ctx.services.runtime.get(ctx.identity, requireString(params, 'taskId')).then(record => ctx.revision.taskView(ctx, record));
}

/** Answers a 2026-07-28 task's inputRequests (its client, or in a session the owner): keys not open are ignored (SEP-2663). */
async function updateTask(ctx: RequestContext, params: Params): Promise<Record<string, unknown>> {
    const taskId = requireString(params, 'taskId');
    const responses = optionalObject(params, 'inputResponses');
    if (!responses) {
        throw invalidParams('inputResponses must be an object of answers keyed by the inputRequests keys');
    }
    const { runtime } = ctx.services;
    await runtime.get(ctx.identity, taskId);
    await runtime.inputs.answer(taskId, responses);
    return ctx.revision.complete({});
}

function cancelTask(ctx: RequestContext, params: Params): Result {
    return ctx.revision.cancelTask(ctx, requireString(params, 'taskId'));
}

/** Blocks until the task is terminal; meanwhile this response stream can carry the task's requests. */
async function taskResult(ctx: RequestContext, params: Params): Promise<Record<string, unknown>> {
    const taskId = requireString(params, 'taskId');
    const { reply, services } = ctx;
    const push = ctx.push!;
    const { signal } = ctx.abort;
    push.addRoute(taskId, reply);
    // The suites wait for this line: the request is taken up, queued input requests already flushed to it.
    services.log.debug(`[session] tasks/result for ${taskId} waiting`);
    try {
        const { outcome } = await services.runtime.result(ctx.identity, taskId, signal);
        if ('error' in outcome) {
            throw new RpcError(outcome.error.code, outcome.error.message, outcome.error.data);
        }
        return { ...outcome.result, _meta: { ...outcome.result._meta, ...relatedTaskMeta(taskId) } };
    } catch (err) {
        if (signal.aborted) {
            // The reliability tests count this line: a caller that left released its waiter.
            services.log.debug(`[session] tasks/result for ${taskId} released: ${errorMessage(signal.reason)}`);
        }
        throw err;
    } finally {
        push.removeRoute(taskId, reply);
    }
}

async function listTasks(ctx: RequestContext, params: Params): Promise<Record<string, unknown>> {
    const parent = optionalObject(params, '_meta')?.[PARENT_TASK_META_KEY];
    if (parent !== undefined && typeof parent !== 'string') {
        throw invalidParams(`_meta["${PARENT_TASK_META_KEY}"] must be a task id string`);
    }
    const page = await ctx.services.runtime.list(ctx.identity, optionalString(params, 'cursor'), parent);
    const owner = ownerView(ctx);
    const tasks = page.tasks.map(task => toWireTask(task, owner));
    return page.nextCursor ? { tasks, nextCursor: page.nextCursor } : { tasks };
}

/**
 * Every MCP method this server answers, one handler each over a RequestContext, whichever
 * revision serves it (the revision adapter shapes what differs). A method both revisions have is
 * added here once; `only` marks the few one revision has alone (its lifecycle, its streams). A
 * embedder (the gateway, with its wrapped servers' prompts and resources) adds its own in `services.methods`.
 */
export const METHODS: ReadonlyMap<string, Method> = new Map<string, Method>([
    ['tools/list', { handler: listTools }],
    ['tools/call', { handler: callTool }],
    ['tasks/get', { handler: getTask }],
    ['tasks/update', { handler: updateTask }],
    ['tasks/cancel', { handler: cancelTask }],
    ['initialize', { handler: initialize, only: '2025-11-25' }],
    ['ping', { handler: () => ({}), only: '2025-11-25' }],
    ['tasks/result', { handler: taskResult, only: '2025-11-25' }],
    ['tasks/list', { handler: listTasks, only: '2025-11-25' }],
    ['server/discover', { handler: discover, only: '2026-07-28' }],
    ['subscriptions/listen', { handler: listen, only: '2026-07-28' }],
]);
