import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { errorMessage } from '../log.js';
import { onStop, textResult, type CallToolResult, type ToolContext } from '../tools/types.js';
import type { DirectCall } from './directRequests.js';
import { asRpcError, isConnectionClosed, type Downstream } from './downstream.js';
import { asksProgress, ProgressRelay } from './progressRelay.js';
import { CancelTaskResultSchema, CreateTaskResultSchema, GetTaskResultSchema, ResultSchema } from './sdkClient.js';

/** No request timeout of our own: the host decides how long a call may take (setTimeout's largest delay). */
const NO_TIMEOUT = 2 ** 31 - 1;
/**
 * A tool result is passed on as the downstream gave it: checking only that it is an object (not
 * every content block, as CallToolResultSchema would) keeps the gateway's cost per call low, and
 * the host validates what it reads anyway.
 */
const PASSED_ON = ResultSchema;
/** How often a downstream task is asked for its status when it sends no notifications. */
const MIN_TASK_POLL_MS = 500;

/**
 * Runs a downstream tool for one of our calls (a task or a plain call alike: `ctx` says which).
 * Its progress reaches our host, its questions become ours, our cancellation becomes its
 * `notifications/cancelled`, and its result is ours.
 * A failure of the gateway's own (the server died, is restarting) is a tool error saying so.
 */
export function call2025(downstream: Downstream, toolName: string, args: Record<string, unknown>, ctx: ToolContext, asTask: boolean, waited = false): Promise<CallToolResult> {
    if (!waited && downstream.state !== 'up') {
        // Starting or restarting: the call waits for it (a while), instead of failing at once.
        return downstream.whenUp(ctx.signal).then(() => call2025(downstream, toolName, args, ctx, asTask, true));
    }
    let client: Client;
    try {
        client = downstream.connected();
    } catch (err) {
        return Promise.resolve(textResult(errorMessage(err), true));
    }
    return asTask ? callAsTask(downstream, client, toolName, args, ctx) : callPlain(downstream, toolName, args, ctx);
}

/**
 * A plain call, on the lean path (Downstream.callTool). Not async: the call's own promise, one
 * `then` on it, instead of an async function's promise and the resumptions of its awaits. It asks
 * for progress when its progress can be read (asksProgress).
 */
function callPlain(downstream: Downstream, toolName: string, args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult> {
    const running = downstream.calls.begin(ctx);
    // Made on the first update: most plain calls report none.
    let relay: ProgressRelay | undefined;
    const asked = asksProgress(ctx);
    let call: DirectCall;
    try {
        call = downstream.callTool(toolName, args, asked ? update => (relay ??= new ProgressRelay(ctx, downstream.clock)).onProgress(update) : undefined);
    } catch (err) {
        running.end();
        return new Promise(resolve => resolve(failed(downstream, toolName, ctx, err)));
    }
    const unlisten = onStop(ctx, reason => call.cancel(reason));
    const end = () => {
        unlisten();
        relay?.close();
        running.end();
    };
    return call.result.then(
        result => {
            end();
            return result as CallToolResult;
        },
        (err: unknown) => {
            end();
            return failed(downstream, toolName, ctx, err);
        },
    );
}

async function callAsTask(downstream: Downstream, client: Client, toolName: string, args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult> {
    const running = downstream.calls.begin(ctx, true);
    const relay = new ProgressRelay(ctx, downstream.clock);
    try {
        return await mirrorTask(downstream, client, toolName, args, ctx, relay);
    } catch (err) {
        return failed(downstream, toolName, ctx, err);
    } finally {
        relay.close();
        running.end();
    }
}

/** What a failed call answers: our host's cancel as it was, a lost downstream as a tool error saying so, else the downstream's error (throws but for the lost downstream). */
function failed(downstream: Downstream, toolName: string, ctx: ToolContext, err: unknown): CallToolResult {
    if (ctx.signal.aborted) {
        // Stopping the call is what sent the downstream notifications/cancelled.
        ctx.log.info(`[${downstream.name}] ${toolName}: cancelled; sent the wrapped server notifications/cancelled`);
        throw ctx.signal.reason;
    }
    if (isConnectionClosed(err)) {
        return textResult(`The wrapped MCP server "${downstream.name}" stopped while ${toolName} was running (${downstream.lastExit ?? 'connection lost'}); it is being restarted. Call ${toolName} again once it is back.`, true);
    }
    // The downstream's error answer is ours, as it gave it (a task of it fails with that error).
    throw asRpcError(err) ?? new Error(`${toolName} on the wrapped MCP server "${downstream.name}" failed: ${errorMessage(err)}`, { cause: err });
}

/**
 * A downstream tool that must run as a task: our task mirrors the downstream's. Its status
 * messages become our progress messages, its questions (tied to its task) are asked as ours, our
 * cancel cancels it, and its result is ours. tasks/result is waited on from the start: the SDK
 * server delivers a task's queued questions on that stream.
 */
async function mirrorTask(downstream: Downstream, client: Client, toolName: string, args: Record<string, unknown>, ctx: ToolContext, relay: ProgressRelay): Promise<CallToolResult> {
    const created = await client.request({ method: 'tools/call', params: { name: toolName, arguments: args, task: {} } }, CreateTaskResultSchema, { signal: ctx.signal, timeout: NO_TIMEOUT });
    const { taskId, pollInterval } = created.task;
    const unbind = downstream.calls.bindTask(taskId, ctx);
    let step = 0;
    let lastMessage: string | undefined;
    const onStatus = (status: { status?: unknown; statusMessage?: unknown }) => {
        if (typeof status.statusMessage === 'string' && status.statusMessage !== lastMessage) {
            lastMessage = status.statusMessage;
            relay.onProgress({ progress: ++step, message: lastMessage });
        }
    };
    const unwatch = downstream.watchTask(taskId, onStatus);
    // The downstream may not notify: ask at its poll interval too.
    const { clock } = downstream;
    const ask = () => void client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, { signal: ctx.signal }).then(onStatus, () => undefined);
    ask();
    const poll = clock.setInterval(ask, Math.max(pollInterval ?? 1000, MIN_TASK_POLL_MS), true);
    const cancel = () => void client.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema).catch(err => ctx.log.debug(`[${downstream.name}] tasks/cancel ${taskId}: ${errorMessage(err)}`));
    if (ctx.signal.aborted) {
        cancel();
    }
    ctx.signal.addEventListener('abort', cancel, { once: true });
    try {
        return (await client.request({ method: 'tasks/result', params: { taskId } }, PASSED_ON, { signal: ctx.signal, timeout: NO_TIMEOUT })) as CallToolResult;
    } finally {
        ctx.signal.removeEventListener('abort', cancel);
        clock.clearInterval(poll);
        unwatch();
        unbind();
    }
}
