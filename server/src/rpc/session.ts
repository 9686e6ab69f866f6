import { errorMessage, type Logger } from '../log.js';
import type { ClientHub, ClientIdentity, ClientLink, InputCapability } from '../tasks/hub.js';
import type { TaskRuntime } from '../tasks/runtime.js';
import type { Disposable } from '../tasks/types.js';
import { PARENT_TASK_META_KEY, relatedTaskMeta, toWireTask } from '../tasks/wire.js';
import { parseArguments } from '../tools/registry.js';
import { SpawnError } from '../tools/subtasks.js';
import { sleep, textResult, type CallToolResult, type ToolContext, type ToolDefinition } from '../tools/types.js';
import { ErrorCodes, invalidParams, methodNotFound, RpcError } from './errors.js';
import { errorResponse, resultResponse, type JsonRpcMessage, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from './messages.js';
import { optionalObject, optionalString, progressTokenOf, requireString } from './params.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from './protocol.js';

/** Somewhere a message can be written; false when that place is closed. */
export interface Outlet {
    send(message: JsonRpcMessage): boolean;
    /** Writes out at once what a coalescing outlet still holds. */
    flush?(): void;
}

/** What a transport lends a session: its standalone stream (GET SSE, or stdout) when one is open. */
export interface SessionChannel {
    standalone(): Outlet | undefined;
}

export interface SessionServices {
    runtime: TaskRuntime;
    hub: ClientHub;
    log: Logger;
    serverInfo: { name: string; title: string; version: string };
    instructions: string;
}

interface PendingRequest {
    id: RequestId;
    message: JsonRpcRequest;
    relatedTaskId?: string;
    via?: Outlet;
    delivered: boolean;
    resolve(result: Record<string, unknown>): void;
    reject(err: unknown): void;
    cleanup(): void;
}

/**
 * A request's cancellation. The AbortController (costly: an EventTarget) is made only when
 * something asks for the signal or aborts it; most requests (tasks/get, list, cancel) never do.
 */
class RequestAbort {
    private controller?: AbortController;

    get signal(): AbortSignal {
        return (this.controller ??= new AbortController()).signal;
    }

    get aborted(): boolean {
        return this.controller?.signal.aborted ?? false;
    }

    abort(reason: unknown): void {
        (this.controller ??= new AbortController()).abort(reason);
    }
}

/**
 * What a tool called without `task` gets. A class, so `signal` can be a getter on the prototype
 * (an object literal with a getter is built slowly, on every call): a tool that never looks at its
 * signal (greet) costs no AbortController. The functions are own properties, so destructuring works.
 */
class InlineContext implements ToolContext {
    constructor(
        private readonly abort: RequestAbort,
        readonly log: Logger,
        readonly progress: ToolContext['progress'],
        readonly elicit: ToolContext['elicit'],
        readonly createMessage: ToolContext['createMessage'],
        readonly spawn: ToolContext['spawn'],
    ) {}

    get signal(): AbortSignal {
        return this.abort.signal;
    }

    sleep(ms: number): Promise<void> {
        return sleep(ms, this.abort.signal);
    }
}

export const SERVER_CAPABILITIES = {
    tools: { listChanged: false },
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
} as const;

/**
 * One MCP connection: answers its requests, and is the ClientLink the runtime uses to reach
 * that client. Requests to the client are delivered exactly once, on the first open outlet.
 */
export class McpSession implements ClientLink {
    private clientCapabilities: Record<string, unknown> = {};
    private readonly inflight = new Map<RequestId, RequestAbort>();
    private readonly pending = new Map<RequestId, PendingRequest>();
    private outbox: PendingRequest[] = [];
    private readonly taskStreams = new Map<string, Set<Outlet>>();
    private readonly registration: Disposable;
    private nextRequestId = 1;
    private closed = false;
    protocolVersion?: string;

    constructor(
        readonly identity: ClientIdentity,
        private readonly services: SessionServices,
        private readonly channel: SessionChannel,
    ) {
        this.registration = services.hub.add(this);
    }

    get isClosed(): boolean {
        return this.closed;
    }

    get busy(): boolean {
        return this.inflight.size > 0;
    }

    supports(capability: InputCapability): boolean {
        return this.clientCapabilities[capability] !== undefined;
    }

    /** Answers one request; never throws (errors become JSON-RPC error responses). */
    async handleRequest(request: JsonRpcRequest, exchange: Outlet): Promise<JsonRpcResponse> {
        const abort = new RequestAbort();
        this.inflight.set(request.id, abort);
        try {
            return resultResponse(request.id, await this.dispatch(request, exchange, abort));
        } catch (err) {
            if (err instanceof RpcError) {
                return errorResponse(request.id, err.toJSON());
            }
            this.services.log.error(`[session] ${request.method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
            return errorResponse(request.id, { code: ErrorCodes.InternalError, message: `Internal error: ${errorMessage(err)}` });
        } finally {
            this.inflight.delete(request.id);
        }
    }

    /** Aborts the in-flight request the peer cancelled; never cancels a task (the spec forbids it). */
    handleNotification(notification: JsonRpcNotification): void {
        if (notification.method === 'notifications/cancelled') {
            const requestId = notification.params?.requestId;
            if (typeof requestId === 'string' || typeof requestId === 'number') {
                this.inflight.get(requestId)?.abort(new RpcError(ErrorCodes.InvalidRequest, 'Request cancelled by the client'));
            }
        }
    }

    /** The transport lost the connection a request came on. */
    abortRequest(id: RequestId, reason: string): void {
        this.inflight.get(id)?.abort(new RpcError(ErrorCodes.ConnectionClosed, reason));
    }

    handleResponse(response: JsonRpcResponse): void {
        const pending = response.id === null ? undefined : this.pending.get(response.id);
        if (!pending) {
            this.services.log.debug(`[session] response for unknown request id ${String(response.id)}`);
            return;
        }
        this.settle(pending);
        if (response.error) {
            // Untrusted JSON: only a numeric code and a string message are kept (turning a deeply
            // nested array into a string overflows the stack and, on stdio, killed the server).
            const { code, message } = response.error as { code?: unknown; message?: unknown };
            pending.reject(new RpcError(typeof code === 'number' ? code : ErrorCodes.InternalError, typeof message === 'string' ? message : 'The client answered with a malformed error object'));
        } else {
            pending.resolve(response.result ?? {});
        }
    }

    notify(method: string, params: Record<string, unknown>, routeTaskId?: string): void {
        const message: JsonRpcNotification = { jsonrpc: '2.0', method, params };
        if (this.channel.standalone()?.send(message)) {
            return;
        }
        for (const outlet of (routeTaskId && this.taskStreams.get(routeTaskId)) || []) {
            if (outlet.send(message)) {
                return;
            }
        }
    }

    request(method: string, params: Record<string, unknown>, options: { relatedTaskId?: string; signal: AbortSignal; via?: Outlet }): Promise<Record<string, unknown>> {
        return new Promise((resolve, reject) => {
            const { signal } = options;
            if (this.closed) {
                reject(new RpcError(ErrorCodes.ConnectionClosed, 'The client connection is closed'));
                return;
            }
            if (signal.aborted) {
                reject(signal.reason);
                return;
            }
            const id = this.nextRequestId++;
            const onAbort = () => {
                this.settle(pending);
                if (pending.delivered) {
                    // Tied to the task like the request it withdraws, so it carries the related-task _meta too.
                    const meta = options.relatedTaskId ? { _meta: relatedTaskMeta(options.relatedTaskId) } : {};
                    this.notify('notifications/cancelled', { requestId: id, reason: errorMessage(signal.reason), ...meta }, options.relatedTaskId);
                }
                reject(signal.reason);
            };
            const pending: PendingRequest = {
                id,
                message: { jsonrpc: '2.0', id, method, params },
                relatedTaskId: options.relatedTaskId,
                via: options.via,
                delivered: false,
                resolve,
                reject,
                cleanup: () => signal.removeEventListener('abort', onAbort),
            };
            signal.addEventListener('abort', onAbort, { once: true });
            this.pending.set(id, pending);
            this.outbox.push(pending);
            this.flush();
        });
    }

    /** Delivers queued requests; transports call it when a stream opens. */
    flush(): void {
        if (this.outbox.length === 0) {
            return;
        }
        this.outbox = this.outbox.filter(pending => !this.deliver(pending));
    }

    close(reason = 'Session closed'): void {
        if (this.closed) {
            return;
        }
        this.closed = true;
        this.registration.dispose();
        for (const controller of this.inflight.values()) {
            controller.abort(new RpcError(ErrorCodes.ConnectionClosed, reason));
        }
        for (const pending of [...this.pending.values()]) {
            this.settle(pending);
            pending.reject(new RpcError(ErrorCodes.ConnectionClosed, `${reason} before the client answered`));
        }
        // What was sent before the close (tasks cancelled on shutdown) is written before the caller goes on.
        this.channel.standalone()?.flush?.();
    }

    private deliver(pending: PendingRequest): boolean {
        const candidates: (Outlet | undefined)[] = [pending.via, this.channel.standalone()];
        if (pending.relatedTaskId) {
            candidates.push(...(this.taskStreams.get(pending.relatedTaskId) ?? []));
        }
        for (const outlet of candidates) {
            if (outlet?.send(pending.message)) {
                pending.delivered = true;
                return true;
            }
        }
        return false;
    }

    private settle(pending: PendingRequest): void {
        pending.cleanup();
        this.pending.delete(pending.id);
        const index = this.outbox.indexOf(pending);
        if (index >= 0) {
            this.outbox.splice(index, 1);
        }
    }

    private async dispatch(request: JsonRpcRequest, exchange: Outlet, abort: RequestAbort): Promise<Record<string, unknown>> {
        const { params } = request;
        const { runtime } = this.services;
        switch (request.method) {
            case 'initialize':
                return this.initialize(params);
            case 'ping':
                return {};
            case 'tools/list':
                return { tools: runtime.tools.list() };
            case 'tools/call':
                return this.callTool(params, exchange, abort);
            case 'tasks/get':
                return toWireTask(await runtime.get(this.identity, requireString(params, 'taskId')), this.identity.isOwner);
            case 'tasks/result':
                return this.taskResult(requireString(params, 'taskId'), exchange, abort.signal);
            case 'tasks/list': {
                const parent = optionalObject(params, '_meta')?.[PARENT_TASK_META_KEY];
                if (parent !== undefined && typeof parent !== 'string') {
                    throw invalidParams(`_meta["${PARENT_TASK_META_KEY}"] must be a task id string`);
                }
                const page = await runtime.list(this.identity, optionalString(params, 'cursor'), parent);
                const tasks = page.tasks.map(task => toWireTask(task, this.identity.isOwner));
                return page.nextCursor ? { tasks, nextCursor: page.nextCursor } : { tasks };
            }
            case 'tasks/cancel':
                return toWireTask(await runtime.cancel(this.identity, requireString(params, 'taskId')), this.identity.isOwner);
            default:
                throw methodNotFound(`Method not found: ${request.method}`);
        }
    }

    private initialize(params: Record<string, unknown> | undefined): Record<string, unknown> {
        const requested = requireString(params, 'protocolVersion');
        this.clientCapabilities = optionalObject(params, 'capabilities') ?? {};
        const clientInfo = optionalObject(params, 'clientInfo');
        if (typeof clientInfo?.name === 'string') {
            this.identity.clientName = clientInfo.name.slice(0, 200);
        }
        this.protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
        return {
            protocolVersion: this.protocolVersion,
            capabilities: SERVER_CAPABILITIES,
            serverInfo: this.services.serverInfo,
            instructions: this.services.instructions,
        };
    }

    private async callTool(params: Record<string, unknown> | undefined, exchange: Outlet, abort: RequestAbort): Promise<Record<string, unknown>> {
        const name = requireString(params, 'name');
        const { runtime } = this.services;
        const tool = runtime.tools.get(name);
        // A hidden tool answers exactly like a missing one: it exists only for tasks to spawn.
        if (!tool || tool.hidden) {
            throw invalidParams(`Unknown tool: ${name}`);
        }
        const task = optionalObject(params, 'task');
        const ttl = task?.ttl;
        if (ttl !== undefined && ttl !== null && (typeof ttl !== 'number' || !(ttl >= 0))) {
            throw invalidParams('task.ttl must be a non-negative number of milliseconds');
        }
        // Negotiation errors come before anything runs (the SDK runs the tool first).
        if (task && tool.taskSupport === 'forbidden') {
            throw methodNotFound(`Tool ${name} cannot run as a task (execution.taskSupport is "forbidden"); call it without "task"`);
        }
        if (!task && tool.taskSupport === 'required') {
            throw methodNotFound(`Tool ${name} must run as a task (execution.taskSupport is "required"); call it with "task": {}`);
        }
        const args = parseArguments(tool, optionalObject(params, 'arguments'));
        const progressToken = progressTokenOf(params);
        if (task) {
            const record = await runtime.createTask(this.identity, tool, args, { ttl: ttl ?? undefined, progressToken });
            return { task: toWireTask(record, this.identity.isOwner) };
        }
        return this.runInline(tool, args, progressToken, exchange, abort);
    }

    /** A call without `task`: the work is tied to this request and its response stream. */
    private async runInline(tool: ToolDefinition, args: Record<string, unknown>, progressToken: string | number | undefined, exchange: Outlet, abort: RequestAbort): Promise<CallToolResult> {
        const ask = async (method: string, request: object) => this.request(method, request as Record<string, unknown>, { signal: abort.signal, via: exchange });
        const ctx = new InlineContext(
            abort,
            this.services.log,
            (progress, total, message) => {
                if (progressToken !== undefined && !abort.aborted) {
                    exchange.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress, total, message } });
                }
            },
            async request => (await ask('elicitation/create', request)) as never,
            async request => (await ask('sampling/createMessage', request)) as never,
            async toolName => {
                throw new SpawnError('not_a_task', `Cannot start sub-task ${toolName}: only a tool running as a task can start sub-tasks (call it with "task")`);
            },
        );
        try {
            return await tool.run!(args, ctx);
        } catch (err) {
            if (err instanceof RpcError) {
                throw err;
            }
            return textResult(`Tool ${tool.name} failed: ${errorMessage(err)}`, true);
        }
    }

    /** Blocks until the task is terminal; meanwhile this response stream can carry the task's requests. */
    private async taskResult(taskId: string, exchange: Outlet, signal: AbortSignal): Promise<Record<string, unknown>> {
        const { runtime } = this.services;
        let streams = this.taskStreams.get(taskId);
        if (!streams) {
            streams = new Set();
            this.taskStreams.set(taskId, streams);
        }
        streams.add(exchange);
        try {
            this.flush();
            const { outcome } = await runtime.result(this.identity, taskId, signal);
            if ('error' in outcome) {
                throw new RpcError(outcome.error.code, outcome.error.message, outcome.error.data);
            }
            return { ...outcome.result, _meta: { ...outcome.result._meta, ...relatedTaskMeta(taskId) } };
        } catch (err) {
            if (signal.aborted) {
                // The reliability tests count this line: a caller that left released its waiter.
                this.services.log.debug(`[session] tasks/result for ${taskId} released: ${errorMessage(signal.reason)}`);
            }
            throw err;
        } finally {
            streams.delete(exchange);
            if (streams.size === 0) {
                this.taskStreams.delete(taskId);
            }
        }
    }
}
