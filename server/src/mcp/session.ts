import { OWNER_JOBS_CAPABILITY } from '../contract.js';
import type { Logger } from '../log.js';
import { RpcConnection } from '../rpc/connection.js';
import { ErrorCodes, methodNotFound, RpcError } from '../rpc/errors.js';
import type { JsonRpcRequest } from '../rpc/messages.js';
import type { RequestAbort } from '../rpc/requestAbort.js';
import type { Transport } from '../rpc/transport.js';
import type { ClientHub, ClientIdentity, ClientLink, InputCapability } from '../tasks/hub.js';
import type { TaskRuntime } from '../tasks/runtime.js';
import type { Disposable } from '../tasks/types.js';
import { TASK_STATUS_METHOD } from '../tasks/notifier.js';
import { relatedTaskMeta, type KeyArguments } from '../tasks/wire.js';
import type { ToolDefinition } from '../tools/types.js';
import { HANDLERS_2025_11_25, type McpHandlers } from './handlers.js';
import { revisionOf } from './revision.js';
import type { TaskTools } from './taskTools.js';
import type { RequestStates } from './v2/requestState.js';
import { UnseenTasks } from './unseenTasks.js';
import { StatelessPipe } from './v2/serve.js';

/** The tools as the handlers see them: their listing, lookup and argument validation. */
export interface ToolCatalog extends KeyArguments {
    list(): Record<string, unknown>[];
    get(name: string): ToolDefinition | undefined;
    parseArguments(tool: ToolDefinition, args: unknown): Record<string, unknown>;
}

/** How the server introduces itself in `initialize` (MCP's `Implementation`). */
export interface ServerInfo {
    name: string;
    version: string;
    /** For display; clients show `name` when it is absent. */
    title?: string;
    description?: string;
    websiteUrl?: string;
}

/** What the server lends each session. */
export interface SessionServices {
    runtime: TaskRuntime;
    tools: ToolCatalog;
    /** The task tools (start_<tool>, get_task, cancel_task, list_tasks), unless turned off. */
    taskTools?: TaskTools;
    hub: ClientHub;
    log: Logger;
    serverInfo: ServerInfo;
    /** Guidance for the model, sent in `initialize`; left out of the JSON when absent. */
    instructions?: string;
    /** Signs the requestState of 2026-07-28 calls that wait for input. */
    requestStates: RequestStates;
}

/** What a transport lends a session: its standalone stream (GET SSE, or stdout) when one is open. */
export interface SessionChannel {
    standalone(): Transport | undefined;
}

/**
 * One MCP connection: the ClientLink the runtime uses to reach that client, and the state its
 * handlers keep (capabilities, protocol version). The JSON-RPC work is `rpc`'s; the methods are
 * a handler table per protocol revision (one today), picked by the session.
 */
export class McpSession implements ClientLink {
    readonly rpc: RpcConnection;
    protocolVersion?: string;
    private clientCapabilities: Record<string, unknown> = {};
    private readonly handlers: McpHandlers = HANDLERS_2025_11_25;
    private readonly registration: Disposable;
    /** Requests of a client that never sent initialize and speaks 2026-07-28 (stdio). */
    private readonly stateless: StatelessPipe;
    /** Status notifications of tasks whose CreateTaskResult is not out yet (see announceAfter). */
    private unannounced?: Map<string, Record<string, unknown>[]>;
    /**
     * Tasks the client may not have taken up yet, whose requests wait. Not for the owner: the
     * extension's own client takes a request for a task it has not seen yet, and its Run Tool
     * follows a task by notifications, so it would wait out the grace on every question.
     */
    private readonly unseen?: UnseenTasks;

    constructor(
        readonly identity: ClientIdentity,
        readonly services: SessionServices,
        channel: SessionChannel,
    ) {
        this.rpc = new RpcConnection(this.dispatch, () => channel.standalone(), services.log);
        this.stateless = new StatelessPipe(services, identity);
        this.unseen = identity.isOwner ? undefined : new UnseenTasks(services.runtime.clock);
        this.registration = services.hub.add(this);
    }

    get isClosed(): boolean {
        return this.rpc.isClosed;
    }

    get busy(): boolean {
        return this.rpc.busy;
    }

    supports(capability: InputCapability): boolean {
        return this.clientCapabilities[capability] !== undefined;
    }

    runsJobs(kind: string): boolean {
        const experimental = this.clientCapabilities.experimental as Record<string, { kinds?: unknown } | undefined> | undefined;
        const kinds = experimental?.[OWNER_JOBS_CAPABILITY]?.kinds;
        return this.identity.isOwner && Array.isArray(kinds) && kinds.includes(kind);
    }

    /** Records what initialize negotiated. */
    initialized(protocolVersion: string, capabilities: Record<string, unknown>, clientName: string | undefined): void {
        this.protocolVersion = protocolVersion;
        this.clientCapabilities = capabilities;
        if (clientName !== undefined) {
            this.identity.clientName = clientName;
        }
    }

    notify(method: string, params: Record<string, unknown>, relatedTaskId?: string): void {
        // A pipe that never sent initialize speaks 2026-07-28, where nothing is sent unasked (subscriptions/listen).
        if (this.protocolVersion === undefined) {
            return;
        }
        const held = relatedTaskId !== undefined && method === TASK_STATUS_METHOD ? this.unannounced?.get(relatedTaskId) : undefined;
        if (held) {
            held.push(params);
        } else {
            this.rpc.notify(method, params, relatedTaskId);
        }
    }

    /**
     * The task's status notifications wait until the request that creates it (`creating`) has
     * been answered: a client hears of a task only after its CreateTaskResult, even when it ended
     * at once (otherwise its "completed" went out first, in the same write, for an unknown id).
     */
    announceAfter(taskId: string, creating: RequestAbort): void {
        this.unseen?.introduce(taskId);
        const unannounced = (this.unannounced ??= new Map());
        const held: Record<string, unknown>[] = [];
        unannounced.set(taskId, held);
        creating.afterResponse(() => {
            unannounced.delete(taskId);
            for (const params of held) {
                this.notify(TASK_STATUS_METHOD, params, taskId);
            }
        });
    }

    /** A request to the client; a task's goes also on the streams waiting on that task's result. */
    request(method: string, params: Record<string, unknown>, options: { relatedTaskId?: string; signal: AbortSignal; via?: Transport }): Promise<Record<string, unknown>> {
        const { relatedTaskId } = options;
        const unseen = relatedTaskId === undefined ? undefined : this.unseen?.whenSeen(relatedTaskId, options.signal);
        if (unseen) {
            return unseen.then(() => this.request(method, params, options));
        }
        return this.rpc.request(method, params, {
            signal: options.signal,
            via: options.via,
            route: relatedTaskId,
            // Tied to the task like the request it withdraws, so its cancellation carries the related-task _meta too.
            cancelParams: relatedTaskId ? { _meta: relatedTaskMeta(relatedTaskId) } : undefined,
        });
    }

    close(reason = 'Session closed'): void {
        if (this.rpc.isClosed) {
            return;
        }
        this.registration.dispose();
        this.rpc.close(reason);
        this.unseen?.dispose();
    }

    private readonly dispatch = (request: JsonRpcRequest, reply: Transport, abort: RequestAbort): Promise<Record<string, unknown>> | Record<string, unknown> => {
        this.unseen?.seen(request.params);
        // stdio: a pipe that has sent initialize is a 2025-11-25 session; before that, a request
        // naming a later version is served statelessly (HTTP decides in its transport).
        if (this.protocolVersion === undefined && (this.stateless.knows(request) || revisionOf(request.method, request.params, false) === 'stateless')) {
            return this.stateless.serve(request, reply, abort);
        }
        const handler = this.handlers.get(request.method);
        if (!handler) {
            throw methodNotFound(`Method not found: ${request.method}`);
        }
        // MCP lifecycle: before initialize has been answered, only ping is served (HTTP has no
        // session before then; this holds the stdio pipe to the same rule).
        if (this.protocolVersion === undefined && request.method !== 'initialize' && request.method !== 'ping') {
            throw new RpcError(ErrorCodes.InvalidRequest, `Server not initialized: send initialize first (only ping is answered before it), not ${request.method}`);
        }
        return handler(this, request.params, reply, abort);
    };
}
