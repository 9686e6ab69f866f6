import { errorMessage } from '../util/log.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import { TASKS_EXTENSION } from '../mcp/rev2026/envelope.js';
import { textResult, type CallToolResult, type ToolContext } from '../tools/types.js';
import { CANCEL_ANSWER_MS, callFailed, MAX_INPUT_ROUNDS, MIN_TASK_POLL_MS, plainCancelNote, type CallPath2026, type LinkHooks } from './link.js';
import { asksProgress, ProgressRelay } from './progressRelay.js';
import { ErrorCode, McpError } from './sdkClient.js';
import { withoutResultType, type Client2026 } from './client2026.js';

type Json = Record<string, unknown>;


/**
 * Runs a tool of a downstream that speaks only 2026-07-28 for one of our calls (a task or a plain
 * call alike). The call goes without the tasks extension, so the downstream runs it in the request:
 * its progress reaches our host, our cancellation becomes its `notifications/cancelled`, and an
 * InputRequiredResult (SEP-2322) is answered by asking our host each question (as our task's input
 * requests, or on the host's request) and retrying with the answers and the `requestState`. A tool
 * the downstream runs only as a task (it answers -32021 naming the extension) is called again with
 * the extension, and our call mirrors that task (mirrorTask).
 */
export async function call2026(link: CallPath2026, toolName: string, args: Json, ctx: ToolContext): Promise<CallToolResult> {
    const client = link.connection;
    const { hooks } = link;
    const relay = new ProgressRelay(ctx, hooks.clock);
    // As for a plain call on a 2025-11-25 downstream; a downstream task's status messages reach us either way.
    const route = asksProgress(ctx) ? link.progressToken(relay.onProgress) : undefined;
    const meta = route ? { _meta: { progressToken: route.token } } : undefined;
    try {
        let params: Json = { name: toolName, arguments: args, ...meta };
        let tasks = false;
        for (let round = 0; ; ) {
            let result: Json;
            try {
                // A call that may create a task is not withdrawn: its task, once it exists, is cancelled instead (mirrorTask).
                result = await client.call('tools/call', params, tasks ? undefined : ctx.signal, tasks);
            } catch (err) {
                if (!tasks && needsTasksExtension(err)) {
                    tasks = true;
                    continue;
                }
                throw err;
            }
            if (result.resultType === 'task') {
                return await mirrorTask(hooks, client, toolName, result, ctx, relay);
            }
            if (result.resultType !== 'input_required') {
                return withoutResultType(result) as CallToolResult;
            }
            if (++round > MAX_INPUT_ROUNDS) {
                throw new Error(`${toolName} on the wrapped MCP server "${hooks.name}" asked for input ${MAX_INPUT_ROUNDS} times in a row; the gateway stopped answering`);
            }
            const answers = await answerAll(result.inputRequests, new Set(), ctx, toolName);
            params = { name: toolName, arguments: args, inputResponses: answers, ...meta };
            if (result.requestState !== undefined) {
                params.requestState = result.requestState;
            }
        }
    } catch (err) {
        if (ctx.signal.aborted) {
            // Before a mirrored task's own note, which comes with the server's answer and replaces this one.
            ctx.annotateStop?.(textResult(plainCancelNote(hooks.name, toolName)));
        }
        return callFailed(hooks, toolName, ctx, err, 'told the wrapped server');
    } finally {
        route?.end();
        relay.close();
    }
}

/**
 * A downstream task (SEP-2663) that our call mirrors: polled with `tasks/get` at its
 * `pollIntervalMs` (at least MIN_TASK_POLL_MS); its status messages become our progress, each of
 * its `inputRequests` is asked once as ours and answered with `tasks/update`, our cancel is its
 * `tasks/cancel`, and the result or error it ends with is ours.
 */
async function mirrorTask(hooks: LinkHooks, client: Client2026, toolName: string, created: Json, ctx: ToolContext, relay: ProgressRelay): Promise<CallToolResult> {
    const taskId = created.taskId;
    if (typeof taskId !== 'string') {
        throw new Error(`${toolName} on the wrapped MCP server "${hooks.name}" answered a task without a taskId`);
    }
    // The task's end waits for the answer, and says what it was: 2026-07-28 acknowledges a cancel, it does not confirm a stop.
    const cancel = () => {
        // A server that never answers holds the task's end CANCEL_ANSWER_MS at most.
        const giveUp = new AbortController();
        const timer = hooks.clock.setTimeout(controller => controller.abort(new Error(`no answer within ${CANCEL_ANSWER_MS / 1000} s`)), CANCEL_ANSWER_MS, giveUp, true);
        const answered = client.call('tasks/cancel', { taskId }, giveUp.signal, true).finally(() => hooks.clock.clearTimeout(timer)).then(
            () => {
                ctx.log.info(`[${hooks.name}] ${toolName}: cancelled; the wrapped server acknowledged tasks/cancel for its task ${taskId}`);
                return `The wrapped server "${hooks.name}" acknowledged the cancel of its task ${taskId}; an acknowledgement is not a confirmation that its work stopped.`;
            },
            (err: unknown) => {
                ctx.log.debug(`[${hooks.name}] tasks/cancel ${taskId}: ${errorMessage(err)}`);
                return `The wrapped server "${hooks.name}" did not acknowledge the cancel of its task ${taskId} (${errorMessage(err)}): its work may still be running there.`;
            },
        );
        ctx.holdEnd?.(answered.then(note => ctx.annotateStop?.(textResult(note))));
    };
    if (ctx.signal.aborted) {
        cancel();
    }
    ctx.signal.addEventListener('abort', cancel, { once: true });
    const asked = new Set<string>();
    let step = 0;
    let lastMessage: string | undefined;
    let task = created;
    try {
        for (;;) {
            if (typeof task.statusMessage === 'string' && task.statusMessage !== lastMessage) {
                lastMessage = task.statusMessage;
                relay.onProgress({ progress: ++step, message: lastMessage });
            }
            switch (task.status) {
                case 'completed':
                    return withoutResultType((task.result as Json | undefined) ?? {}) as CallToolResult;
                case 'failed':
                    throw failure(task.error, toolName, hooks.name);
                case 'cancelled':
                    throw new Error(`${toolName} on the wrapped MCP server "${hooks.name}": its task ${taskId} was cancelled there`);
                default: {
                    // Questions not asked yet are asked now; answered ones wait for the server to take them.
                    const open = Object.entries((task.inputRequests as Json | undefined) ?? {}).filter(([key]) => !asked.has(key));
                    if (task.status === 'input_required' && open.length > 0) {
                        const inputResponses = await answerAll(Object.fromEntries(open), asked, ctx, toolName);
                        await client.call('tasks/update', { taskId, inputResponses }, ctx.signal, true);
                    } else {
                        await ctx.sleep(Math.max(typeof task.pollIntervalMs === 'number' ? task.pollIntervalMs : 0, MIN_TASK_POLL_MS));
                    }
                }
            }
            task = await client.call('tasks/get', { taskId }, ctx.signal, true);
        }
    } finally {
        ctx.signal.removeEventListener('abort', cancel);
    }
}

/**
 * Asks our host each question of an InputRequiredResult or a task's `inputRequests` (one at a
 * time, as a person answers them) and gives the answers by the same keys; `asked` collects the keys.
 */
async function answerAll(requests: unknown, asked: Set<string>, ctx: ToolContext, toolName: string): Promise<Json> {
    const answers: Json = {};
    for (const [key, request] of Object.entries((requests as Json | undefined) ?? {})) {
        asked.add(key);
        const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
        if (method === 'elicitation/create') {
            answers[key] = await ctx.elicit(params as never);
        } else if (method === 'sampling/createMessage') {
            answers[key] = await ctx.createMessage(params as never);
        } else {
            throw new Error(`${toolName} asked for ${String(method)}, which the gateway cannot ask its host`);
        }
    }
    return answers;
}

/** -32021 for the tasks extension: the tool runs only as a task. */
function needsTasksExtension(err: unknown): boolean {
    if (!(err instanceof McpError) || err.code !== ErrorCodes.MissingRequiredClientCapability) {
        return false;
    }
    const required = (err.data as { requiredCapabilities?: { extensions?: Json } } | undefined)?.requiredCapabilities;
    return required?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** A failed downstream task's JSON-RPC error, as ours. */
function failure(error: unknown, toolName: string, server: string): Error {
    const { code, message, data } = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
    if (typeof code === 'number' && typeof message === 'string') {
        return new RpcError(code, message, data);
    }
    return new McpError(ErrorCode.InternalError, `${toolName} on the wrapped MCP server "${server}" failed without saying why`);
}
