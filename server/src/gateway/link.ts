import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { RevisionName } from '../contract.js';
import { errorMessage } from '../util/log.js';
import { RpcError } from '../rpc/errors.js';
import { textResult, type CallToolResult, type ToolContext } from '../tools/types.js';
import type { Clock } from '../util/clock.js';
import type { Client2026 } from './client2026.js';
import type { DirectCall, DirectProgress } from './directRequests.js';
// One namespace: the SDK client module's export list is not written out again here.
import * as sdk from './sdkClient.js';

/**
 * One connection to a wrapped server, shaped by the revision it speaks: the mirror of the
 * server's own Revision (mcp/context.ts). The Downstream owns the process and its restarts; a
 * link is one connection's life, from its handshake to its close. Link2025 (link2025.ts) opens
 * with `initialize` and the SDK Client; Link2026 (link2026.ts) with `server/discover`.
 */
export interface DownstreamLink {
    readonly revision: RevisionName;
    /** What the server declared (prompts, resources, …). */
    readonly capabilities: Record<string, unknown> | undefined;
    /** The guidance for the model it gave, if any. */
    readonly instructions: string | undefined;
    readonly serverInfo: { name?: string; version?: string } | undefined;
    /** Every page of its tools/list. */
    listTools(): Promise<Tool[]>;
    /** Runs its tool `toolName` for one of our calls (`asTask`: as a downstream task; call2025.ts, call2026.ts). */
    callTool(toolName: string, args: Record<string, unknown>, ctx: ToolContext, asTask: boolean): Promise<CallToolResult>;
    /** A forwarded request (prompts, resources, completions, …), its result as the server gave it, less the revision's envelope. */
    request(request: { method: string; params?: Record<string, unknown> }, resultSchema: typeof sdk.ResultSchema, options?: { signal?: AbortSignal }): Promise<Record<string, unknown>>;
    /** Once the link is up: starts what runs for its whole life (a 2026-07-28 listen stream). */
    opened(): void;
    /** Tells the server our host's roots changed (it asks roots/list again), when it speaks a revision that has roots. */
    rootsChanged?(): void;
    close(): Promise<void>;
}

/** What a link tells its Downstream, and asks of it. */
export interface LinkHooks {
    readonly name: string;
    readonly clock: Clock;
    /** Why the last connection ended, for the message of a call it took down. */
    readonly lastExit: () => string | undefined;
    /** The server's tools changed: here they are. */
    toolsChanged(tools: Tool[]): void;
    /** A notification every client of ours hears too: prompt and resource list changes, resource updates, log messages. */
    notify(method: string, params: Record<string, unknown>): void;
    /** The host's roots, for the server's roots/list (none when there is no single host to ask: see Gateway.setRoots). */
    roots(signal: AbortSignal): Promise<unknown[]>;
    /** The call a downstream question belongs to (its user answers it); throws what the downstream is answered when there is none. */
    asker(params: { _meta?: Record<string, unknown> } | undefined, what: string): ToolContext;
    /** Begins one call on this server (so its questions reach that call's user); end() when it ends. */
    begin(ctx: ToolContext, task?: boolean): { end(): void };
    /** Ties a downstream task to the call that mirrors it; the returned function unties it. */
    bindTask(taskId: string, ctx: ToolContext): () => void;
    /** Seconds a cancelled plain call may run on before the server is restarted to stop it (restartOnIgnoredCancel); undefined: never. */
    readonly cancelRestartSeconds?: number;
    /** Restarts the server to stop `toolName`, which did not end after its cancel; resolves once its connection is closed. */
    restartToStop(toolName: string): Promise<void>;
    /** The connection ended on its own (the process exited, the stream closed). */
    closed(link: DownstreamLink): void;
    debug(text: string): void;
    warn(text: string): void;
}

/** What the calls of a 2025-11-25 link (call2025.ts) use of it. */
export interface CallPath2025 {
    readonly hooks: LinkHooks;
    readonly client: sdk.Client;
    /** A plain tools/call on the lean path (DirectRequests), its progress to `onProgress`. */
    plainCall(name: string, args: Record<string, unknown>, onProgress: ((update: DirectProgress) => void) | undefined): DirectCall;
    /** Mirrors a downstream task's status notifications to `listener` until the returned function runs. */
    watchTask(taskId: string, listener: (params: Record<string, unknown>) => void): () => void;
}

/** What the calls of a 2026-07-28 link (call2026.ts) use of it. */
export interface CallPath2026 {
    readonly hooks: LinkHooks;
    readonly connection: Client2026;
    /** A progress token for one request, whose updates go to `listener` until the returned `end` runs. */
    progressToken(listener: (params: { progress: number; total?: number; message?: string }) => void): { token: string; end(): void };
}

/** How often a downstream task is asked for its status, at least (its own poll interval may ask for longer). */
export const MIN_TASK_POLL_MS = 500;
/** Rounds of questions one call may take before the gateway stops answering (a server that asks forever). */
export const MAX_INPUT_ROUNDS = 16;

/**
 * What a call that failed answers, whichever revision ran it: our host's cancel as it was (logged
 * with `cancelNote`), a lost downstream as a tool error saying so, else the downstream's error
 * answer as ours (throws, but for the lost downstream).
 */
export function callFailed(hooks: Pick<LinkHooks, 'name' | 'lastExit'>, toolName: string, ctx: ToolContext, err: unknown, cancelNote: string): CallToolResult {
    if (ctx.signal.aborted) {
        ctx.log.info(`[${hooks.name}] ${toolName}: cancelled; ${cancelNote}`);
        throw ctx.signal.reason;
    }
    if (isConnectionClosed(err)) {
        return textResult(`The wrapped MCP server "${hooks.name}" stopped while ${toolName} was running (${hooks.lastExit() ?? 'connection lost'}); it is being restarted. Call ${toolName} again once it is back.`, true);
    }
    throw asRpcError(err) ?? (err instanceof RpcError ? err : new Error(`${toolName} on the wrapped MCP server "${hooks.name}" failed: ${errorMessage(err)}`, { cause: err }));
}

/** How long a cancelled task's end waits for the wrapped server's answer to tasks/cancel. */
export const CANCEL_ANSWER_MS = 5000;

/** What a cancelled plain downstream call's result says of the wrapped server's side: a withdrawn request has no answer, so nothing confirms a stop. */
export function plainCancelNote(server: string, toolName: string): string {
    return `The cancel was sent to the wrapped server "${server}". MCP has no answer to a cancelled request, so nothing confirms that ${toolName} stopped there: a server that ignores cancellation runs it to its end.`;
}

/**
 * Cancels a plain call on a server with restartOnIgnoredCancel: `cancel` withdraws it and calls
 * its `onEnd` when the server answers it after all (`answered`) or the connection ends. Should that not come
 * within the set seconds, the server is restarted, which ends the call and every other call
 * running there. MCP has no answer to a cancelled request (the SDK's servers send none), so a
 * server that stopped as told is restarted all the same: the option is for servers whose cancels
 * do not work. Resolves with what the cancelled call's result says happened.
 */
export function cancelOrRestart(hooks: LinkHooks, toolName: string, seconds: number, cancel: (onEnd: (answered: boolean) => void) => () => void): Promise<string> {
    return new Promise(resolve => {
        // Its callback runs a turn later at the soonest, once stopListening is set.
        const timer = hooks.clock.setTimeout(
            () => {
                stopListening();
                resolve(hooks.restartToStop(toolName).then(() => restartedNote(hooks.name, toolName, seconds)));
            },
            seconds * 1000,
            undefined,
            true,
        );
        const stopListening = cancel(answered => {
            hooks.clock.clearTimeout(timer);
            resolve(
                answered
                    ? `The cancel was sent to the wrapped server "${hooks.name}", and it answered that call within ${seconds} s: ${toolName} ended there.`
                    : `The wrapped server "${hooks.name}" stopped within ${seconds} s of the cancel, which ended ${toolName} there.`,
            );
        });
    });
}

/** What a call the gateway stopped by restarting its server says. */
function restartedNote(server: string, toolName: string, seconds: number): string {
    return `The wrapped server "${server}" did not end ${toolName} within ${seconds} s of the cancel, so the gateway restarted it to stop the call.`;
}

/** A downstream's error answer as ours: its code, message (without the SDK's "MCP error N: " prefix) and data. */
export function asRpcError(err: unknown): RpcError | undefined {
    if (!(err instanceof sdk.McpError)) {
        return undefined;
    }
    return new RpcError(err.code, err.message.replace(/^MCP error -?\d+: /, ''), err.data);
}

/** An error answer of the server's own (not a lost connection or a timeout of ours): it refused the request. */
export function refused(err: unknown): boolean {
    return err instanceof sdk.McpError && err.code !== sdk.ErrorCode.ConnectionClosed && err.code !== sdk.ErrorCode.RequestTimeout;
}

/** Whether an error is the SDK's "connection closed" for a request that was in flight. */
export function isConnectionClosed(err: unknown): boolean {
    return err instanceof sdk.McpError && err.code === sdk.ErrorCode.ConnectionClosed;
}
