import { errorMessage } from '../log.js';
import { invalidParams, methodNotFound, RpcError } from '../rpc/errors.js';
import { fromChat, optionalObject, optionalString, progressTokenOf, requireString } from '../rpc/params.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../rpc/protocol.js';
import type { RequestAbort } from '../rpc/requestAbort.js';
import type { Transport } from '../rpc/transport.js';
import { PARENT_TASK_META_KEY, relatedTaskMeta, toWireTask, type KeyArguments } from '../tasks/wire.js';
import { runInline } from './inline.js';
import { getTask, ownerUpdateTask } from './ownerInputs.js';
import { startToolName } from './taskTools.js';
import type { McpSession } from './session.js';

type Params = Record<string, unknown> | undefined;
type Result = Promise<Record<string, unknown>> | Record<string, unknown>;

/** One MCP method: `reply` is the transport the request came on, `abort` its cancellation. */
export type McpHandler = (session: McpSession, params: Params, reply: Transport, abort: RequestAbort) => Result;

/** The methods of one protocol revision; a later revision gets a table of its own beside this one. */
export type McpHandlers = ReadonlyMap<string, McpHandler>;

export const SERVER_CAPABILITIES = {
    tools: { listChanged: true },
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
} as const;

function initialize(session: McpSession, params: Params): Result {
    const requested = requireString(params, 'protocolVersion');
    const clientInfo = optionalObject(params, 'clientInfo');
    const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
    session.initialized(protocolVersion, optionalObject(params, 'capabilities') ?? {}, typeof clientInfo?.name === 'string' ? clientInfo.name.slice(0, 200) : undefined);
    const { serverInfo, instructions } = session.services;
    return { protocolVersion, capabilities: SERVER_CAPABILITIES, serverInfo, instructions };
}

async function callTool(session: McpSession, params: Params, reply: Transport, abort: RequestAbort): Promise<Record<string, unknown>> {
    const name = requireString(params, 'name');
    const { runtime, tools, taskTools } = session.services;
    const taskTool = taskTools?.get(name);
    if (taskTool) {
        if (optionalObject(params, 'task')) {
            throw methodNotFound(`Tool ${name} cannot run as a task (execution.taskSupport is "forbidden"); call it without "task"`);
        }
        return taskTools!.call(session, taskTool, optionalObject(params, 'arguments'), abort);
    }
    const tool = tools.get(name);
    // A hidden tool answers exactly like a missing one: it exists only for tasks to spawn.
    if (!tool || tool.hidden) {
        throw invalidParams(`Unknown tool: ${name}`);
    }
    const task = optionalObject(params, 'task');
    const ttl = task?.ttl;
    if (ttl !== undefined && ttl !== null && (typeof ttl !== 'number' || !(ttl >= 0))) {
        throw invalidParams('task.ttl must be a non-negative number of milliseconds');
    }
    // Negotiation errors come before anything runs (the SDK runs the tool first).
    if (task && tool.taskSupport === 'forbidden') {
        throw methodNotFound(`Tool ${name} cannot run as a task (execution.taskSupport is "forbidden"); call it without "task"`);
    }
    if (!task && tool.taskSupport === 'required') {
        const instead = taskTools ? `, or call ${startToolName(name)} with the same arguments to start it in the background and get_task to follow it` : '';
        throw methodNotFound(`Tool ${name} must run as a task (execution.taskSupport is "required"); call it with "task": {}${instead}`);
    }
    const args = tools.parseArguments(tool, optionalObject(params, 'arguments'));
    const progressToken = progressTokenOf(params);
    if (task) {
        const record = await runtime.createTask(session.identity, tool, args, {
            ttl: ttl ?? undefined,
            progressToken,
            chat: fromChat(params),
            onCreated: taskId => session.announceAfter(taskId, abort),
        });
        return { task: toWireTask(record, ownerView(session)) };
    }
    return runInline(session, tool, args, progressToken, reply, abort);
}

function listTools(session: McpSession): Record<string, unknown> {
    const { tools, taskTools } = session.services;
    return { tools: taskTools ? [...tools.list(), ...taskTools.list()] : tools.list() };
}

/** Blocks until the task is terminal; meanwhile this response stream can carry the task's requests. */
async function taskResult(session: McpSession, params: Params, reply: Transport, abort: RequestAbort): Promise<Record<string, unknown>> {
    const taskId = requireString(params, 'taskId');
    const { signal } = abort;
    session.rpc.addRoute(taskId, reply);
    // The suites wait for this line: the request is taken up, queued input requests already flushed to it.
    session.services.log.debug(`[session] tasks/result for ${taskId} waiting`);
    try {
        const { outcome } = await session.services.runtime.result(session.identity, taskId, signal);
        if ('error' in outcome) {
            throw new RpcError(outcome.error.code, outcome.error.message, outcome.error.data);
        }
        return { ...outcome.result, _meta: { ...outcome.result._meta, ...relatedTaskMeta(taskId) } };
    } catch (err) {
        if (signal.aborted) {
            // The reliability tests count this line: a caller that left released its waiter.
            session.services.log.debug(`[session] tasks/result for ${taskId} released: ${errorMessage(signal.reason)}`);
        }
        throw err;
    } finally {
        session.rpc.removeRoute(taskId, reply);
    }
}

async function listTasks(session: McpSession, params: Params): Promise<Record<string, unknown>> {
    const parent = optionalObject(params, '_meta')?.[PARENT_TASK_META_KEY];
    if (parent !== undefined && typeof parent !== 'string') {
        throw invalidParams(`_meta["${PARENT_TASK_META_KEY}"] must be a task id string`);
    }
    const page = await session.services.runtime.list(session.identity, optionalString(params, 'cursor'), parent);
    const owner = ownerView(session);
    const tasks = page.tasks.map(task => toWireTask(task, owner));
    return page.nextCursor ? { tasks, nextCursor: page.nextCursor } : { tasks };
}

/** Owners see each task's info (tool, arguments, key argument); other clients see the spec's Task. */
function ownerView(session: McpSession): KeyArguments | undefined {
    return session.identity.isOwner ? session.services.tools : undefined;
}

/** MCP 2025-11-25 (and the earlier revisions it negotiates down to): tools and tasks. */
export const HANDLERS_2025_11_25: McpHandlers = new Map<string, McpHandler>([
    ['initialize', initialize],
    ['ping', () => ({})],
    ['tools/list', listTools],
    ['tools/call', callTool],
    ['tasks/get', getTask],
    ['tasks/result', taskResult],
    ['tasks/list', listTasks],
    ['tasks/update', ownerUpdateTask],
    ['tasks/cancel', async (session, params) => toWireTask(await session.services.runtime.cancel(session.identity, requireString(params, 'taskId')), ownerView(session))],
]);
