import type { CallToolResult, CreateMessageRequestParams, CreateMessageResult, ElicitRequestFormParams, ElicitResult, ToolAnnotations } from '../mcpTypes.js';
import type { z } from 'zod';
import type { Logger } from '../util/log.js';
import type { ProgressUpdate } from '../tasks/types.js';
import type { LogGap, LogGuard } from '../commands/logGap.js';

export type { CallToolResult } from '../mcpTypes.js';
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** What a running tool may do besides compute: report, ask, and notice cancellation. */
export interface ToolContext {
    /** Aborted when the task is cancelled, expires, or the server shuts down. */
    readonly signal: AbortSignal;
    /**
     * Waits `ms`, or rejects with the stop reason as soon as the work is stopped (as `sleep(ms,
     * ctx.signal)` does). Prefer it in loops: a task waiting here needs no AbortSignal listener,
     * which costs about a kilobyte per task.
     */
    sleep(ms: number): Promise<void>;
    /** Set when the tool runs as a task. */
    readonly taskId?: string;
    /** Tasks only: how long the task is kept after it ends (its TTL, in ms). */
    readonly ttl?: number;
    /**
     * The client this call or task belongs to, as an opaque key: two calls with the same key ask
     * the same user. Lets a tool that relays questions (the gateway) never ask another client's user.
     */
    readonly clientKey?: string;
    readonly log: Logger;
    progress(progress: number, total?: number, message?: string): void;
    /**
     * False while no one reads this call's progress: a plain call whose request carried no
     * progress token. Absent or true otherwise (a task, or a call deferred into one, keeps it).
     * Lets a tool skip work only progress needs, such as asking a wrapped server for progress.
     */
    readonly progressWatched?: boolean;
    /** Form-mode elicitation; the task shows `input_required` while the answer is pending. */
    elicit(params: ElicitRequestFormParams): Promise<ElicitResult>;
    /** Sampling; the task shows `input_required` while the answer is pending. */
    createMessage(params: CreateMessageRequestParams): Promise<CreateMessageResult>;
    /**
     * Starts another registered tool (hidden ones included) as a child task of this one: a real
     * task of the same client, listed with the parent id under `_meta["dev.mcp-tasks/parent-task-id"]`,
     * with this task's TTL. Rejects with a SpawnError (catchable) for an unknown or task-forbidden
     * tool, invalid arguments, the depth or children limit, or when this task is no longer running;
     * always rejects in an inline (non-task) call. Children still running when this task ends are
     * cancelled, and cancelling this task cancels them first.
     */
    spawn(toolName: string, args?: Record<string, unknown>, options?: SpawnOptions): Promise<ChildTask>;
    /**
     * Tasks only: once the task is stopped (cancelled, shut down), its end is recorded only after
     * `work` settles, e.g. once a process tree the tool started is gone. Absent in inline calls,
     * which end when `run` returns anyway.
     */
    holdEnd?(work: Promise<unknown>): void;
    /**
     * Tasks only: the work can go on without this server process (a command under a keeper that a
     * later server re-adopts). When the server shuts down, `detach` lets it go instead of the task
     * being cancelled; the task stays `working` in the durable store. Absent in inline calls.
     */
    outliveServer?(detach: () => Promise<void>): void;
    /**
     * Tasks only: what the result of a stopped (cancelled) task carries after why it stopped, such
     * as the output a command gave before it was stopped. Its first text joins the first content
     * block, so a host that shows only that block shows it too. Give it before the work passed to
     * holdEnd settles (or, without holdEnd, synchronously as the stop reaches the tool).
     */
    annotateStop?(result: CallToolResult): void;
    /**
     * Tasks only: the outcome in a few words for the person following the task ("Confirmed",
     * "Kept the file"), which the task keeps as its final statusMessage if it completes (task lists
     * and the editor's row show it). The last call counts. A failure's message is the result's
     * text, unless the tool concluded (a short account of a long result: VS Code shows only the
     * message of a failed task); a cancellation says why. Absent in inline calls, whose result is all there is.
     */
    conclude?(message: string): void;
    /**
     * 2026-07-28 plain calls only (SEP-2322): asks the client several things at once, by key
     * (`{ method, params }` each: elicitation/create, sampling/createMessage, roots/list), and
     * resolves with the answers by key. The call ends with an InputRequiredResult and the tool runs
     * again on the retry, when the answers are in; so a tool must ask before doing anything it
     * cannot repeat. Absent elsewhere.
     */
    input?(requests: Record<string, { method: string; params: Record<string, unknown> }>): Promise<Record<string, unknown>>;
    /** 2026-07-28 plain calls only: the capabilities the request declared. */
    readonly clientCapabilities?: Record<string, unknown>;
    /**
     * Plain calls that --defer-after may turn into a task: `listener` gets the task's id if this
     * call goes on as one (a command then ties its log to it, for read_output). Absent elsewhere.
     */
    onDeferred?(listener: (taskId: string) => void): void;
    /**
     * Plain calls over 2025-11-25 HTTP only: closes the HTTP connection that carries this call's
     * response stream without ending the stream (SSE polling, SEP-1699), so no connection is held
     * while the work goes on; the client reconnects with GET and Last-Event-ID after the stream's
     * `retry` and receives what follows there, the result included. False where a stream cannot
     * be resumed (stdio, 2026-07-28, a client before 2025-11-25 or without SSE); absent in tasks.
     */
    closeConnection?(): boolean;
    /**
     * Plain calls only: `listener` gets the stop reason when the work is stopped (at once if it
     * is already), as a listener on `signal` would, without making an AbortController; the
     * returned function removes it. Use it through `onStop`, which falls back to the signal.
     */
    whenStopped?(listener: (reason: unknown) => void): () => void;
}

export interface SpawnOptions {
    /** Called with each progress update the child reports (through the store, so from any process). */
    onProgress?(update: ProgressUpdate): void;
}

/** A handle on a child task, for the parent's code. */
export interface ChildTask {
    readonly taskId: string;
    readonly toolName: string;
    /**
     * The child's result once it completes. Rejects with a ChildTaskError when it fails or is
     * cancelled (uncaught, that fails the parent, naming the child), or with this task's abort
     * reason when the parent itself is cancelled. Every call returns the same promise.
     */
    wait(): Promise<CallToolResult>;
    /** Cancels the child and its own children, naming this task and `reason`; a no-op once it has ended. */
    cancel(reason?: string): Promise<void>;
}

/**
 * For tools whose tasks live in an external job system: the runtime asks the handler rather
 * than the store for status and result, and forwards cancellation to it.
 */
export interface ExternalTaskHandler<A = Record<string, unknown>> {
    /** Submits the job; returns the external system's reference for it. */
    start(args: A, taskId: string): Promise<string>;
    getStatus(ref: string): Promise<ExternalStatus>;
    /** Called once the status is `completed` or `failed`. */
    getResult(ref: string): Promise<CallToolResult>;
    cancel(ref: string): Promise<void>;
    /** Optional push: call `onChange` when the job's status changes; returns an unsubscribe. */
    watch?(ref: string, onChange: (status: ExternalStatus) => void): () => void;
}

export interface ExternalStatus {
    status: 'working' | 'completed' | 'failed' | 'cancelled';
    statusMessage?: string;
}

export interface ToolDefinition<S extends z.ZodObject = z.ZodObject> {
    name: string;
    title: string;
    description: string;
    inputSchema: S;
    /** The JSON Schema `tools/list` shows instead of the one derived from `inputSchema` (keywords zod cannot express). */
    jsonInputSchema?: Record<string, unknown>;
    outputSchema?: z.ZodObject;
    /** The JSON Schema `tools/list` shows as outputSchema when there is no zod one (a wrapped server's tool). */
    jsonOutputSchema?: Record<string, unknown>;
    annotations?: ToolAnnotations;
    taskSupport: TaskSupport;
    /** The argument that names this invocation best, for task lists (a label, topic, file, job id). */
    keyArgument?: string;
    /** Internal: not in `tools/list` and unknown to `tools/call`; only tasks can run it, through `ctx.spawn`. */
    hidden?: boolean;
    /** A demonstration that does no real work: tools derived from it (start_<tool>) say so first too. */
    demo?: boolean;
    run?(args: z.output<S>, ctx: ToolContext): Promise<CallToolResult>;
    /**
     * 2026-07-28 only: input gathered (multi round-trip, through `ask`) before a call of a
     * 2026-07-28 client becomes a task; what it returns is added to the arguments the task runs with.
     */
    gather?(args: z.output<S>, ask: NonNullable<ToolContext['input']>): Promise<Record<string, unknown>>;
    external?: ExternalTaskHandler<z.output<S>>;
    /** A task of this tool nobody has asked about (tasks/get, get_task, read_output…) for this long is cancelled, even in the background. */
    maxUnpolledMs?: number;
    /**
     * Its work goes on outside this process (a command's process, which a later server re-adopts):
     * with a store that writes tasks to a file, it starts only once its task is written, so a server
     * that dies in between leaves a task to re-adopt or end, never a process no task names. (External
     * jobs wait likewise; work that ends with this process starts at once.)
     */
    outlivesServer?: boolean;
    /** Where a task of this tool writes its output (command tools): read_output and get_task read it. */
    output?(taskId: string): OutputLog | undefined;
    /** `output` holds only a result too long for one answer, written at the end (wrapped tools): texts offering read_output while a task runs leave it out. */
    outputIsResult?: boolean;
}

/** A task's output file, as read_output reads it. */
export interface OutputLog {
    readonly path: string;
    /** The run still writes to it. */
    running: boolean;
    /** Why it is no longer on disk, once it is not. */
    gone?: string;
    /** Per caller (client key): where its next read_output starts by default. */
    readonly readTo: Map<string, number>;
    /** Per caller: the log's size when it last read it or asked get_task about it ("new output since your last call"). */
    readonly seenSize: Map<string, number>;
    /** Reads go through it: a running log's middle may be left out meanwhile (runLog.ts), never during a read. */
    readonly guard: LogGuard;
    /** The middle left out to keep the log within its limit, once some was: offsets, sizes and line numbers are the output's as written. */
    gap?: LogGap;
}

/** Keeps the schema's argument type attached to `run` while storing tools in one list. */
export function defineTool<S extends z.ZodObject>(tool: ToolDefinition<S>): ToolDefinition {
    return tool as unknown as ToolDefinition;
}

export function textResult(text: string, isError = false): CallToolResult {
    return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] };
}

/**
 * Calls `listener` once with the reason when `ctx`'s work is stopped (at once if it is already);
 * the returned function removes it. A plain call's context does this without an AbortController
 * (whenStopped); elsewhere it is a listener on `ctx.signal`.
 */
export function onStop(ctx: ToolContext, listener: (reason: unknown) => void): () => void {
    if (ctx.whenStopped) {
        return ctx.whenStopped(listener);
    }
    const { signal } = ctx;
    const onAbort = () => listener(signal.reason);
    if (signal.aborted) {
        onAbort();
        return () => undefined;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
        if (signal.aborted) {
            reject(signal.reason);
            return;
        }
        const onAbort = () => {
            clearTimeout(timer);
            reject(signal.reason);
        };
        const timer = setTimeout(() => {
            signal.removeEventListener('abort', onAbort);
            resolve();
        }, ms);
        signal.addEventListener('abort', onAbort, { once: true });
    });
}
