import type { Logger } from '../util/log.js';
import type { RequestId } from '../rpc/messages.js';
import type { RequestAbort } from '../rpc/requestAbort.js';
import type { Transport } from '../rpc/transport.js';
import type { ClientIdentity, InputCapability } from '../tasks/hub.js';
import type { TaskRecord } from '../tasks/types.js';
import type { TaskRuntime } from '../tasks/runtime.js';
import type { KeyArguments, OwnerFacts } from '../tasks/wire.js';
import type { CallToolResult, ToolDefinition } from '../tools/types.js';
import type { ClientHub } from '../tasks/hub.js';
import type { TaskTool, TaskTools } from './taskTools.js';
import type { CheckedArguments } from '../tools/arguments.js';
import type { Envelope } from './rev2026/envelope.js';
import type { RequestStates } from './rev2026/requestState.js';

/** The tools as the handlers see them: their listing, lookup and argument validation. */
export interface ToolCatalog extends KeyArguments {
    list(): Record<string, unknown>[];
    get(name: string): ToolDefinition | undefined;
    checkArguments(tool: ToolDefinition, args: unknown): CheckedArguments;
}

/** How the server introduces itself (MCP's `Implementation`). */
export interface ServerInfo {
    name: string;
    version: string;
    /** For display; clients show `name` when it is absent. */
    title?: string;
    description?: string;
    websiteUrl?: string;
}

/** What the server lends every request, whichever revision serves it. */
export interface McpServices {
    runtime: TaskRuntime;
    tools: ToolCatalog;
    /** The task tools (start_<tool>, get_task, cancel_task, list_tasks), unless turned off. */
    taskTools?: TaskTools;
    hub: ClientHub;
    log: Logger;
    serverInfo: ServerInfo;
    /** Guidance for the model, sent in `initialize` / `server/discover`; left out of the JSON when absent. */
    instructions?: string;
    /** Signs the requestState of 2026-07-28 calls that wait for input. */
    requestStates: RequestStates;
    /** Capabilities an embedder (the gateway) adds to what `initialize` and `server/discover` declare (see capabilities.ts). */
    capabilities?: Record<string, unknown>;
    /** Refuse every 2025-11-25 request (`--no-session-protocol`): only 2026-07-28 is spoken. */
    only2026?: boolean;
    /** Methods an embedder (the gateway) adds to the table (methods.ts), served like the built-in ones; a built-in name wins. */
    methods?: ReadonlyMap<string, Method>;
    /** A plain call of a task-capable tool still running after this many ms goes on as a task (defer.ts); 0 or absent = never. */
    deferAfterMs?: number;
    /** Where an embedder's resources are subscribed to (the gateway's), for the URIs a 2026-07-28 listener names. */
    resourceSubscriptions?: ResourceSubscriber;
    /** Tools still being found (wrapped servers on their first start): tools/list and a call of an unknown name wait for them, a while. */
    toolsStarting?: ToolsStarting;
}

/**
 * How long tools/list (and a forwarded list, a subscriptions/listen naming resources) waits for
 * tools still on their way (wrapped servers starting): long enough for a server npx has cached,
 * short enough for a host's start-up budget (Codex: 10 s). Slower ones arrive with list_changed.
 */
export const LIST_WAIT_MS = 5000;
/** How long a call of a tool not known yet waits for them: the tool may be on its way. */
export const CALL_WAIT_MS = 30_000;

/**
 * Tools that are on their way: the gateway answers `initialize` and `server/discover` at once, and
 * its wrapped servers' tools arrive as each one starts (with `notifications/tools/list_changed`).
 */
export interface ToolsStarting {
    /** Whether some tools are still on their way. */
    pending(): boolean;
    /** Resolves once they are all in, after `maxMs` at the latest, or when `signal` aborts (never rejects). */
    wait(signal: AbortSignal, maxMs: number): Promise<void>;
}

/** An embedder's resource subscriptions, held by a subscriptions/listen stream while it is open. */
export interface ResourceSubscriber {
    /** Subscribes to `uri` until the returned release is called; rejects when no server serves it. */
    hold(uri: string, signal: AbortSignal): Promise<() => void>;
}

/** One entry of the method table: its handler, and the revisions that have the method (both unless named). */
export interface Method {
    handler: Handler;
    only?: RevisionName;
}

/** A connection the server can push to (a 2025-11-25 session): requests, notifications, routes. */
export interface PushChannel {
    readonly protocolVersion?: string;
    initialized(protocolVersion: string, capabilities: Record<string, unknown>, clientName: string | undefined): void;
    /** Whether the client declared it can answer this kind of request. */
    supports(capability: InputCapability): boolean;
    request(method: string, params: Record<string, unknown>, options: { relatedTaskId?: string; signal: AbortSignal; via?: Transport }): Promise<Record<string, unknown>>;
    /** Holds the task's status notifications until the request that creates it is answered. */
    announceAfter(taskId: string, creating: RequestAbort): void;
    /** Lets `transport` carry the messages of `taskId` (a response stream waiting on it). */
    addRoute(taskId: string, transport: Transport): void;
    removeRoute(taskId: string, transport: Transport): void;
}

/** One request, whichever revision and transport carried it. */
export interface RequestContext {
    readonly id: RequestId;
    /** The caller: the identity its tasks bind to. */
    readonly identity: ClientIdentity;
    /** What differs between the protocol revisions (see revision adapters). */
    readonly revision: Revision;
    readonly services: McpServices;
    /** The transport the request came on; its response and progress go back on it. */
    readonly reply: Transport;
    readonly abort: RequestAbort;
    /** Set when the server can push to this client (a 2025-11-25 session); a 2026-07-28 request has none. */
    readonly push?: PushChannel;
    /** What a 2026-07-28 request's `_meta` declared; undefined in a session. */
    readonly envelope?: Envelope;
}

export type Params = Record<string, unknown> | undefined;
export type Result = Promise<Record<string, unknown>> | Record<string, unknown>;

/** One MCP method, the same for every revision: the revision adapter shapes what differs. */
export type Handler = (ctx: RequestContext, params: Params) => Result;

export type { RevisionName } from '../contract.js';
import type { RevisionName } from '../contract.js';

/**
 * What differs between the protocol revisions, and nothing else: the envelope of a result
 * (`resultType`), which methods a revision has, how a call becomes a task and how a task is
 * reported, and how a call asks its client for input (a server request, or an InputRequiredResult).
 */
export interface Revision {
    readonly name: RevisionName;
    /** Throws the error for a method this revision lacks (not in the table, or not served in it). */
    missing(method: string): never;
    /** Throws when this request may not call `method` here (before initialize, a missing extension). */
    admit(ctx: RequestContext, method: string): void;
    /** A complete result as this revision sends it. */
    complete(result: Record<string, unknown>): Record<string, unknown>;
    /** A complete result a client may cache (a list, a resource read): 2026-07-28 says for how long (SEP-2549). */
    cacheable(result: Record<string, unknown>): Record<string, unknown>;
    /** The tools/list result for these tools. */
    toolListing(tools: Record<string, unknown>[]): Record<string, unknown>;
    /** A task tool (start_<tool>, get_task...) is called: it is never a task. */
    callTaskTool(ctx: RequestContext, taskTools: TaskTools, tool: TaskTool, params: Params): Result;
    /** Whether this tools/call runs as a task; throws the negotiation errors. */
    callsAsTask(ctx: RequestContext, tool: ToolDefinition, params: Params): boolean;
    /** Creates the task of a call, and reports it (CreateTaskResult). */
    startTask(ctx: RequestContext, tool: ToolDefinition, args: Record<string, unknown>, params: Params): Result;
    /** A call whose arguments do not fit the tool: its `isError` result, as this revision answers it (as a task when asked for one). */
    refuseArguments(ctx: RequestContext, tool: ToolDefinition, result: CallToolResult, asTask: boolean, params: Params): Result;
    /** Runs a call in the request itself. */
    runInRequest(ctx: RequestContext, tool: ToolDefinition, args: Record<string, unknown>, params: Params): Result;
    /** The task as tasks/get reports it. */
    taskView(ctx: RequestContext, record: TaskRecord): Result;
    /** Cancels the task, and reports it. */
    cancelTask(ctx: RequestContext, taskId: string): Result;
}

/** Owners see each task's info (tool, arguments, key argument); other clients see the spec's Task. */
export function ownerView(ctx: RequestContext): OwnerFacts | undefined {
    return ctx.identity.isOwner ? ctx.services.runtime.ownerFacts : undefined;
}
