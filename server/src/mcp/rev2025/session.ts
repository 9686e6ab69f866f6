import { OWNER_JOBS_CAPABILITY } from '../../contract.js';
import { RpcConnection } from '../../rpc/connection.js';
import type { JsonRpcRequest } from '../../rpc/messages.js';
import type { RequestAbort } from '../../rpc/requestAbort.js';
import type { Transport } from '../../rpc/transport.js';
import type { ClientIdentity, ClientLink, InputCapability } from '../../tasks/hub.js';
import type { Disposable } from '../../tasks/types.js';
import { TASK_STATUS_METHOD } from '../../tasks/notifier.js';
import { relatedTaskMeta } from '../../tasks/wire.js';
import type { McpServices, PushChannel, Result } from '../context.js';
import { sessionRequest } from '../router.js';
import { UnseenTasks } from '../unseenTasks.js';
import { AnnounceTick } from './announceTick.js';

/**
 * How long after a CreateTaskResult the task's first status notifications wait. VS Code's client
 * takes up a task only once the result's promise has settled (a microtask later), so a
 * notification it reads in the same batch as the result names a task it does not know yet and
 * is dropped: a task that ended at once was then read only at VS Code's first poll, a second
 * later. In a later read, the notification finds the task.
 */
export const ANNOUNCE_GAP_MS = 5;

/** What a transport lends a session: its standalone stream (GET SSE, or stdout) when one is open. */
export interface SessionChannel {
    standalone(): Transport | undefined;
}

/**
 * One MCP connection the server can push to: the ClientLink the runtime uses to reach that client,
 * and the state a 2025-11-25 session keeps (capabilities, protocol version). The JSON-RPC work is
 * `rpc`'s; what each request does is the router's (router.ts: one handler table for both revisions).
 */
export class McpSession implements ClientLink, PushChannel {
    readonly rpc: RpcConnection;
    protocolVersion?: string;
    private clientCapabilities: Record<string, unknown> = {};
    private readonly registration: Disposable;
    /** Status notifications of tasks whose CreateTaskResult is not out yet (see announceAfter). */
    private unannounced?: Map<string, Record<string, unknown>[]>;
    /** When those go: one timer for the session's tasks (see AnnounceTick). */
    private announceTick?: AnnounceTick;
    /**
     * Tasks the client may not have taken up yet, whose requests wait. Not for the owner: the
     * extension's own client takes a request for a task it has not seen yet, and its Run Tool
     * follows a task by notifications, so it would wait out the grace on every question.
     */
    private readonly unseen?: UnseenTasks;

    constructor(
        readonly identity: ClientIdentity,
        readonly services: McpServices,
        channel: SessionChannel,
    ) {
        this.rpc = new RpcConnection(this.dispatch, () => channel.standalone(), services.log);
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

    /** Whether the client declared roots in initialize (a stdio gateway asks its host for them: gateway/attach.ts). */
    get declaresRoots(): boolean {
        return this.clientCapabilities.roots !== undefined;
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
     * been answered, and ANNOUNCE_GAP_MS more: a client hears of a task only after its
     * CreateTaskResult, in a later read, even when it ended at once (otherwise its "completed"
     * went out first, or in the same write, for an id the client did not know yet). Tasks
     * answered while the session's tick is set wait for the tick after it (up to twice the gap).
     */
    announceAfter(taskId: string, creating: RequestAbort): void {
        this.unseen?.introduce(taskId);
        (this.unannounced ??= new Map()).set(taskId, []);
        const tick = (this.announceTick ??= new AnnounceTick(this.services.runtime.clock, ANNOUNCE_GAP_MS, this.announce));
        creating.afterResponse(() => tick.add(taskId));
    }

    /** Sends what waited for the task's CreateTaskResult: after the gap, or as soon as the client names the task. */
    private readonly announce = (taskId: string): void => {
        const held = this.unannounced?.get(taskId);
        if (!held) {
            return;
        }
        this.unannounced!.delete(taskId);
        for (const params of held) {
            this.notify(TASK_STATUS_METHOD, params, taskId);
        }
    };

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
        // What still waits for its gap goes now: a shutdown's "cancelled" must reach the client before the session ends.
        this.announceTick?.stop();
        for (const taskId of [...(this.unannounced?.keys() ?? [])]) {
            this.announce(taskId);
        }
        this.registration.dispose();
        this.rpc.close(reason);
        this.unseen?.dispose();
    }

    /** Lets `transport` carry the messages of `taskId` (a tasks/result waiting on it). */
    addRoute(taskId: string, transport: Transport): void {
        this.rpc.addRoute(taskId, transport);
    }

    removeRoute(taskId: string, transport: Transport): void {
        this.rpc.removeRoute(taskId, transport);
    }

    private readonly dispatch = (request: JsonRpcRequest, reply: Transport, abort: RequestAbort): Result => {
        this.unseen?.seen(request.params);
        // A client that names a task has read its CreateTaskResult: what waits for the gap may go now.
        const named = request.params?.taskId;
        if (typeof named === 'string' && this.unannounced?.has(named)) {
            this.announce(named);
        }
        return sessionRequest(this.services, this.identity, this, request, reply, abort);
    };
}
