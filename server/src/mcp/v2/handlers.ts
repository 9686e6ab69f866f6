import { ErrorCodes, invalidParams, methodNotFound, RpcError } from '../../rpc/errors.js';
import type { RequestId } from '../../rpc/messages.js';
import { optionalObject, progressTokenOf, requireString } from '../../rpc/params.js';
import type { RequestAbort } from '../../rpc/requestAbort.js';
import type { Transport } from '../../rpc/transport.js';
import type { ClientIdentity } from '../../tasks/hub.js';
import { isTerminal } from '../../tasks/types.js';
import type { KeyArguments } from '../../tasks/wire.js';
import { META_SERVER_INFO } from '../revision.js';
import type { SessionServices } from '../session.js';
import type { TaskTool, TaskTools } from '../taskTools.js';
import { ADVERTISED_VERSIONS, hasTasksExtension, requireTasksExtension, TASKS_EXTENSION, type Envelope } from './envelope.js';
import { listen } from './listen.js';
import { inRound, runPlainCall, type PausableCall } from './mrtr.js';
import { createTaskResult, detailedTask } from './taskView.js';

/** One 2026-07-28 request: who sent it (the identity its tasks bind to) and what its `_meta` declared. */
export interface StatelessCall {
    id: RequestId;
    envelope: Envelope;
    identity: ClientIdentity;
    services: SessionServices;
}

type Params = Record<string, unknown> | undefined;
type Result = Promise<Record<string, unknown>> | Record<string, unknown>;
export type StatelessHandler = (call: StatelessCall, params: Params, reply: Transport, abort: RequestAbort) => Result;

/** How long a client may reuse tools/list and server/discover (SEP-2549); a changed list is announced anyway. */
export const LIST_TTL_MS = 60_000;

export const STATELESS_CAPABILITIES = {
    tools: { listChanged: true },
    extensions: { [TASKS_EXTENSION]: {} },
} as const;

function ownerView(call: StatelessCall): KeyArguments | undefined {
    return call.identity.isOwner ? call.services.tools : undefined;
}

function discover(call: StatelessCall): Record<string, unknown> {
    const { serverInfo, instructions } = call.services;
    const result: Record<string, unknown> = {
        resultType: 'complete',
        supportedVersions: ADVERTISED_VERSIONS,
        capabilities: STATELESS_CAPABILITIES,
        ttlMs: LIST_TTL_MS,
        cacheScope: 'public',
        _meta: { [META_SERVER_INFO]: serverInfo },
    };
    if (instructions !== undefined) {
        result.instructions = instructions;
    }
    return result;
}

/** The 2025-11-25 listing without `execution.taskSupport`: in 2026-07-28 the server decides (see callTool). */
function listTools(call: StatelessCall): Record<string, unknown> {
    const { tools, taskTools } = call.services;
    const all = taskTools ? [...tools.list(), ...taskTools.list()] : tools.list();
    return { resultType: 'complete', tools: all.map(withoutExecution), ttlMs: LIST_TTL_MS, cacheScope: 'public' };
}

const stripped = new WeakMap<Record<string, unknown>, Record<string, unknown>>();
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

/**
 * A call becomes a task when the tool may run as one (taskSupport "optional" or "required") and
 * the request declares the tasks extension; a "required" tool without it is -32021. Everything
 * else runs in the request (multi round-trip when it needs input). Not async: a plain call's
 * promise is the tool's own, one microtask hop from its answer; the checks throw before anything runs.
 */
function callTool(call: StatelessCall, params: Params, reply: Transport, abort: RequestAbort): Result {
    const name = requireString(params, 'name');
    const { runtime, tools, taskTools, log, requestStates } = call.services;
    const taskTool = taskTools?.get(name);
    if (taskTool) {
        return callTaskTool(call, taskTools!, taskTool, params, abort);
    }
    const tool = tools.get(name);
    if (!tool || tool.hidden) {
        throw invalidParams(`Unknown tool: ${name}`);
    }
    const asTask = tool.taskSupport !== 'forbidden' && hasTasksExtension(call.envelope);
    if (!asTask && tool.taskSupport === 'required') {
        requireTasksExtension(call.envelope, `Tool ${name} runs only as a task, which`);
    }
    const args = tools.parseArguments(tool, optionalObject(params, 'arguments'));
    const pausable: PausableCall = { tool, args, params, envelope: call.envelope, clientKey: call.identity.clientKey, states: requestStates, log, clock: runtime.clock, progressToken: progressTokenOf(params) };
    if (asTask) {
        return startTask(call, pausable, abort);
    }
    if (tool.external) {
        throw new RpcError(ErrorCodes.InternalError, `Tool ${name} has no inline form`);
    }
    return runPlainCall(pausable, reply, abort);
}

async function callTaskTool(call: StatelessCall, taskTools: TaskTools, taskTool: TaskTool, params: Params, abort: RequestAbort): Promise<Record<string, unknown>> {
    return { resultType: 'complete', ...(await taskTools.call(call, taskTool, optionalObject(params, 'arguments'), abort)) };
}

async function startTask(call: StatelessCall, pausable: PausableCall, abort: RequestAbort): Promise<Record<string, unknown>> {
    const { tool, args } = pausable;
    let taskArgs = args;
    if (tool.gather) {
        // Input the task needs before it exists is asked first, in the call itself (SEP-2663 with SEP-2322).
        const gathered = await inRound(pausable, round => tool.gather!(args, round.ask), abort);
        if ('inputRequired' in gathered) {
            return gathered.inputRequired;
        }
        taskArgs = { ...args, ...gathered.value };
    }
    const record = await call.services.runtime.createTask(call.identity, tool, taskArgs, { statelessCapabilities: call.envelope.capabilities });
    return createTaskResult(record, ownerView(call));
}

async function getTask(call: StatelessCall, params: Params): Promise<Record<string, unknown>> {
    requireTasksExtension(call.envelope, 'tasks/get');
    const { runtime } = call.services;
    const record = await runtime.get(call.identity, requireString(params, 'taskId'));
    return await detailedTask(runtime, record, ownerView(call), 'complete');
}

async function updateTask(call: StatelessCall, params: Params): Promise<Record<string, unknown>> {
    requireTasksExtension(call.envelope, 'tasks/update');
    const taskId = requireString(params, 'taskId');
    const responses = optionalObject(params, 'inputResponses');
    if (!responses) {
        throw invalidParams('inputResponses must be an object of answers keyed by the inputRequests keys');
    }
    const { runtime } = call.services;
    await runtime.get(call.identity, taskId);
    await runtime.inputs.answer(taskId, responses);
    return { resultType: 'complete' };
}

/** An empty, idempotent acknowledgement (SEP-2663): cancelling an ended task is not an error. */
async function cancelTask(call: StatelessCall, params: Params): Promise<Record<string, unknown>> {
    requireTasksExtension(call.envelope, 'tasks/cancel');
    const taskId = requireString(params, 'taskId');
    const { runtime } = call.services;
    const record = await runtime.get(call.identity, taskId);
    if (!isTerminal(record.status)) {
        try {
            await runtime.cancel(call.identity, taskId);
        } catch (err) {
            // It ended meanwhile: still an acknowledgement.
            if (!(err instanceof RpcError && err.code === ErrorCodes.InvalidParams)) {
                throw err;
            }
        }
    }
    return { resultType: 'complete' };
}

function removed(method: string, instead: string): StatelessHandler {
    return () => {
        throw methodNotFound(`Method not found: ${method} is not part of protocol 2026-07-28 (${instead})`);
    };
}

/** MCP 2026-07-28 with the tasks extension: each request on its own, no session. */
export const HANDLERS_2026_07_28: ReadonlyMap<string, StatelessHandler> = new Map<string, StatelessHandler>([
    ['server/discover', discover],
    ['tools/list', listTools],
    ['tools/call', callTool],
    ['tasks/get', getTask],
    ['tasks/update', updateTask],
    ['tasks/cancel', cancelTask],
    ['subscriptions/listen', listen],
    ['tasks/result', removed('tasks/result', 'tasks/get carries the result')],
    ['tasks/list', removed('tasks/list', 'keep the task ids you were given')],
    ['initialize', removed('initialize', 'send server/discover, and _meta on every request')],
    ['ping', removed('ping', 'it was removed')],
    ['logging/setLevel', removed('logging/setLevel', 'set the log level per request in _meta')],
]);
