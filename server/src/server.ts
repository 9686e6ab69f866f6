import { randomUUID } from 'node:crypto';
import { createLogger, type Logger } from './util/log.js';
import { requiredTaskNote, TaskTools, waitLimitSeconds } from './mcp/taskTools.js';
import type { McpServices, Method, ResourceSubscriber, ServerInfo, ToolsStarting } from './mcp/context.js';
import { McpSession, type SessionChannel } from './mcp/rev2025/session.js';
import type { Clock } from './util/clock.js';
import { newSecret } from './contract.js';
import { RequestStates } from './mcp/rev2026/requestState.js';
import { ClientHub, type ClientIdentity } from './tasks/hub.js';
import { MemoryTaskStore } from './tasks/memoryStore.js';
import { DEFAULT_LIMITS } from './defaults.js';
import { TaskRuntime, type RuntimeLimits } from './tasks/runtime.js';
import type { TaskStore } from './tasks/types.js';
import { ToolRegistry } from './tools/registry.js';
import type { ToolDefinition } from './tools/types.js';
import { SERVER_VERSION } from './version.js';

export { DEFAULT_LIMITS } from './defaults.js';

export type { ServerInfo } from './mcp/context.js';

export interface TasksServerOptions extends Partial<RuntimeLimits> {
    /** Default: `{ name: 'mcp-tasks-server', version: SERVER_VERSION }`. */
    serverInfo?: ServerInfo;
    /** Sent to clients in `initialize` as guidance for the model; none by default. */
    instructions?: string;
    /** The tools this server offers; none by default (the CLI serves `defaultTools()`). */
    tools?: ToolDefinition[];
    store?: TaskStore;
    logger?: Logger;
    /** Names this process among replicas sharing a store. */
    workerId?: string;
    /** Time for task retention and `ctx.sleep` (the real clock by default; tests pass a virtual one). */
    clock?: Clock;
    /** Offer the task tools (start_<tool>, get_task, cancel_task, list_tasks) to models; off unless asked (the CLI asks unless --no-task-tools). */
    taskTools?: boolean;
    /**
     * The key that signs the requestState of 2026-07-28 calls waiting for input; a fresh one per
     * launch by default. Replicas behind one endpoint need the same key to accept each other's.
     */
    requestStateKey?: string;
    /** Answer a plain call of a task-capable tool still running after this many ms with "continues as task X" (see mcp/defer.ts); off unless given. */
    deferAfterMs?: number;
    /** False: speak 2026-07-28 only, refusing every 2025-11-25 request (initialize first) with UnsupportedProtocolVersionError. */
    sessionProtocol?: boolean;
    /** Methods an embedder adds (the gateway's prompts, resources, completions, logging), served by both revisions. */
    methods?: ReadonlyMap<string, Method>;
    /** Capabilities those methods add to what initialize and server/discover declare. */
    capabilities?: Record<string, unknown>;
    /** Where those resources are subscribed to for a 2026-07-28 subscriptions/listen that names URIs. */
    resourceSubscriptions?: ResourceSubscriber;
    /** Tools still on their way (a gateway's wrapped servers on their first start): see ToolsStarting. */
    toolsStarting?: ToolsStarting;
}

/** The transport-independent core: one runtime and store, any number of sessions. */
export class TasksServer {
    readonly hub = new ClientHub();
    readonly runtime: TaskRuntime;
    readonly log: Logger;
    private readonly sessions = new Set<McpSession>();
    /** What every session, and every stateless (2026-07-28) request, is served with. */
    readonly services: McpServices;
    private readonly registry: ToolRegistry;

    constructor(options: TasksServerOptions = {}) {
        this.log = options.logger ?? createLogger();
        const limits: RuntimeLimits = {
            defaultTtlMs: options.defaultTtlMs ?? DEFAULT_LIMITS.defaultTtlMs,
            maxTtlMs: options.maxTtlMs ?? DEFAULT_LIMITS.maxTtlMs,
            maxTasksPerClient: options.maxTasksPerClient ?? DEFAULT_LIMITS.maxTasksPerClient,
            maxRetainedTasksPerClient: options.maxRetainedTasksPerClient ?? DEFAULT_LIMITS.maxRetainedTasksPerClient,
            maxRetainedBytesPerClient: options.maxRetainedBytesPerClient ?? DEFAULT_LIMITS.maxRetainedBytesPerClient,
            pollIntervalMs: options.pollIntervalMs ?? DEFAULT_LIMITS.pollIntervalMs,
            maxSubtaskDepth: options.maxSubtaskDepth ?? DEFAULT_LIMITS.maxSubtaskDepth,
            maxChildrenPerTask: options.maxChildrenPerTask ?? DEFAULT_LIMITS.maxChildrenPerTask,
            abandonAfterMs: options.abandonAfterMs ?? DEFAULT_LIMITS.abandonAfterMs,
            stoppedWaiting: options.stoppedWaiting ?? DEFAULT_LIMITS.stoppedWaiting,
        };
        if (limits.defaultTtlMs > limits.maxTtlMs) {
            limits.defaultTtlMs = limits.maxTtlMs;
        }
        const store: TaskStore = options.store ?? new MemoryTaskStore({ clock: options.clock });
        const toolList = options.tools ?? [];
        // Deferral needs the task tools (a model follows the task with get_task): mcp/defer.ts.
        const registry = (this.registry = new ToolRegistry(toolList, Boolean(options.deferAfterMs && options.taskTools), options.taskTools ? requiredTaskNote : undefined));
        this.runtime = new TaskRuntime(store, registry, this.hub, limits, this.log, options.workerId ?? store.workerId ?? randomUUID(), options.clock);
        this.services = {
            runtime: this.runtime,
            tools: registry,
            taskTools: options.taskTools ? new TaskTools(toolList, waitLimitSeconds(options.deferAfterMs)) : undefined,
            hub: this.hub,
            log: this.log,
            serverInfo: { ...(options.serverInfo ?? { name: 'mcp-tasks-server', version: SERVER_VERSION }) },
            instructions: options.instructions,
            requestStates: new RequestStates(options.requestStateKey ?? newSecret()),
            deferAfterMs: options.deferAfterMs,
            only2026: options.sessionProtocol === false,
            methods: options.methods,
            capabilities: options.capabilities,
            resourceSubscriptions: options.resourceSubscriptions,
            toolsStarting: options.toolsStarting,
        };
    }

    createSession(identity: ClientIdentity, channel: SessionChannel): McpSession {
        const session = new McpSession(identity, this.services, channel);
        this.sessions.add(session);
        return session;
    }

    /**
     * Replaces the tools at run time (a reloaded commands file): tools/list changes and every
     * session gets `notifications/tools/list_changed`. Running tasks keep their tool. Throws, and
     * changes nothing, for a set the registry or the task tools refuse.
     */
    setTools(tools: ToolDefinition[]): void {
        const taskTools = this.services.taskTools ? new TaskTools(tools, this.services.taskTools.maxWaitSeconds) : undefined;
        this.registry.replace(tools);
        this.services.taskTools = taskTools;
        this.broadcast('notifications/tools/list_changed');
    }

    /**
     * A notification for every client: each session, and each subscriptions/listen stream of a
     * 2026-07-28 client (which passes on what its client opted in to). For list changes (tools,
     * and an embedder's prompts and resources, such as the gateway's).
     */
    broadcast(method: string, params: Record<string, unknown> = {}): void {
        for (const session of this.sessions) {
            if (!session.isClosed) {
                session.notify(method, params);
            }
        }
        // Sessions were told above.
        for (const link of [...this.hub.all()]) {
            if (!(link instanceof McpSession)) {
                link.notify(method, params);
            }
        }
    }

    /** Ends a session; when it held the only link to its binding key, that client's running tasks are cancelled. */
    async endSession(session: McpSession, reason: string, cancelTasks: boolean): Promise<void> {
        session.close(reason);
        this.sessions.delete(session);
        if (cancelTasks && [...this.hub.linksFor(session.identity.clientKey)].length === 0) {
            await this.runtime.cancelClientTasks(session.identity.clientKey, reason);
            // No client can reach them any more; the owner still sees them, within one client's budget for all gone clients.
            await this.runtime.store.orphan?.(session.identity.clientKey, this.runtime.budget);
        }
    }

    /** Cancels running work (with `reason` as each task's status message), closes sessions and the store. */
    async close(reason = 'Server shutting down'): Promise<void> {
        await this.runtime.shutdown(reason);
        for (const session of this.sessions) {
            session.close(reason);
        }
        this.sessions.clear();
        this.runtime.dispose();
        await this.runtime.store.close();
    }
}

export function createTasksServer(options?: TasksServerOptions): TasksServer {
    return new TasksServer(options);
}
