import { errorMessage } from '../util/log.js';
import { onStop, textResult, type CallToolResult, type ToolContext } from '../tools/types.js';
import type { DirectCall } from './directRequests.js';
import { CANCEL_ANSWER_MS, callFailed, cancelOrRestart, MIN_TASK_POLL_MS, plainCancelNote, type CallPath2025 } from './link.js';
import { asksProgress, ProgressRelay } from './progressRelay.js';
import { CancelTaskResultSchema, CreateTaskResultSchema, GetTaskResultSchema, ResultSchema } from './sdkClient.js';

/** What a cancelled downstream task's result says: the status the server answered tasks/cancel with. */
function taskCancelNote(server: string, taskId: string, status: string): string {
    return status === 'cancelled'
        ? `The wrapped server "${server}" confirmed: its task ${taskId} is cancelled.`
        : `The wrapped server "${server}" answered the cancel of its task ${taskId} with status "${status}": it did not say it stopped.`;
}

/** No request timeout of our own: the host decides how long a call may take (setTimeout's largest delay). */
const NO_TIMEOUT = 2 ** 31 - 1;
/**
 * A tool result is passed on as the downstream gave it: checking only that it is an object (not
 * every content block, as CallToolResultSchema would) keeps the gateway's cost per call low, and
 * the host validates what it reads anyway.
 */
const PASSED_ON = ResultSchema;
/**
 * Runs a downstream tool for one of our calls (a task or a plain call alike: `ctx` says which).
 * Its progress reaches our host, its questions become ours, our cancellation becomes its
 * `notifications/cancelled`, and its result is ours.
 * A failure of the gateway's own (the server died) is a tool error saying so.
 */
export function call2025(link: CallPath2025, toolName: string, args: Record<string, unknown>, ctx: ToolContext, asTask: boolean): Promise<CallToolResult> {
    return asTask ? callAsTask(link, toolName, args, ctx) : callPlain(link, toolName, args, ctx);
}

/**
 * A plain call, on the lean path (Downstream.callTool). Not async: the call's own promise, one
 * `then` on it, instead of an async function's promise and the resumptions of its awaits. It asks
 * for progress when its progress can be read (asksProgress).
 */
function callPlain(link: CallPath2025, toolName: string, args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult> {
    const running = link.hooks.begin(ctx);
    // Made on the first update: most plain calls report none.
    let relay: ProgressRelay | undefined;
    const asked = asksProgress(ctx);
    let call: DirectCall;
    try {
        call = link.plainCall(toolName, args, asked ? update => (relay ??= new ProgressRelay(ctx, link.hooks.clock)).onProgress(update) : undefined);
    } catch (err) {
        running.end();
        return new Promise(resolve => resolve(failed(link, toolName, ctx, err)));
    }
    const unlisten = onStop(ctx, reason => {
        const seconds = link.hooks.cancelRestartSeconds;
        if (seconds !== undefined) {
            // The task's end waits to say whether the call ended or the server was restarted to end it.
            const stopped = cancelOrRestart(link.hooks, toolName, seconds, onEnd => call.cancel(reason, onEnd));
            ctx.holdEnd?.(stopped.then(note => ctx.annotateStop?.(textResult(note))));
            return;
        }
        call.cancel(reason);
        // What is known, no more: notifications/cancelled has no answer, so nothing says the server stopped.
        ctx.annotateStop?.(textResult(plainCancelNote(link.hooks.name, toolName)));
    });
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
            return failed(link, toolName, ctx, err);
        },
    );
}

async function callAsTask(link: CallPath2025, toolName: string, args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult> {
    const running = link.hooks.begin(ctx, true);
    const relay = new ProgressRelay(ctx, link.hooks.clock);
    try {
        return await mirrorTask(link, toolName, args, ctx, relay);
    } catch (err) {
        return failed(link, toolName, ctx, err);
    } finally {
        relay.close();
        running.end();
    }
}

/** What a failed call answers (link.ts callFailed): stopping the call is what sent the downstream notifications/cancelled. */
function failed(link: CallPath2025, toolName: string, ctx: ToolContext, err: unknown): CallToolResult {
    return callFailed(link.hooks, toolName, ctx, err, 'sent the wrapped server notifications/cancelled');
}

/**
 * A downstream tool that must run as a task: our task mirrors the downstream's. Its status
 * messages become our progress messages, its questions (tied to its task) are asked as ours, our
 * cancel cancels it, and its result is ours. tasks/result is waited on from the start: the SDK
 * server delivers a task's queued questions on that stream.
 */
async function mirrorTask(link: CallPath2025, toolName: string, args: Record<string, unknown>, ctx: ToolContext, relay: ProgressRelay): Promise<CallToolResult> {
    const { client, hooks } = link;
    const created = await client.request({ method: 'tools/call', params: { name: toolName, arguments: args, task: {} } }, CreateTaskResultSchema, { signal: ctx.signal, timeout: NO_TIMEOUT });
    const { taskId, pollInterval } = created.task;
    const unbind = hooks.bindTask(taskId, ctx);
    let step = 0;
    let lastMessage: string | undefined;
    const onStatus = (status: { status?: unknown; statusMessage?: unknown }) => {
        if (typeof status.statusMessage === 'string' && status.statusMessage !== lastMessage) {
            lastMessage = status.statusMessage;
            relay.onProgress({ progress: ++step, message: lastMessage });
        }
    };
    const unwatch = link.watchTask(taskId, onStatus);
    // The downstream may not notify: ask at its poll interval too.
    const { clock } = hooks;
    const ask = () => void client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, { signal: ctx.signal }).then(onStatus, () => undefined);
    ask();
    const poll = clock.setInterval(ask, Math.max(pollInterval ?? 1000, MIN_TASK_POLL_MS), true);
    // The task's end waits (a while) for the server's answer to tasks/cancel, which says whether it stopped.
    const cancel = () => {
        const answered = client.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema, { timeout: CANCEL_ANSWER_MS }).then(
            answer => taskCancelNote(hooks.name, taskId, answer.status),
            (err: unknown) => {
                ctx.log.debug(`[${hooks.name}] tasks/cancel ${taskId}: ${errorMessage(err)}`);
                return `The wrapped server "${hooks.name}" did not confirm the cancel of its task ${taskId} (${errorMessage(err)}): its work may still be running there.`;
            },
        );
        ctx.holdEnd?.(answered.then(note => ctx.annotateStop?.(textResult(note))));
    };
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
