import { errorMessage, type Logger } from '../util/log.js';
import { answerRequest, responseTo, type RequestDispatcher } from './answer.js';
import { ErrorCodes, RpcError } from './errors.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from './messages.js';
import { InFlight } from './inFlight.js';
import { RequestAbort } from './requestAbort.js';
import type { Transport } from './transport.js';

export type { RequestDispatcher } from './answer.js';

export interface OutgoingRequestOptions {
    signal: AbortSignal;
    /** Tried first: the response stream of the request this one serves. */
    via?: Transport;
    /** A route key (see addRoute) whose transports may carry it when the standalone one cannot. */
    route?: string;
    /** Extra params of the notifications/cancelled sent when `signal` withdraws a delivered request. */
    cancelParams?: Record<string, unknown>;
}

interface PendingRequest {
    id: RequestId;
    message: JsonRpcRequest;
    route?: string;
    via?: Transport;
    delivered: boolean;
    resolve(result: Record<string, unknown>): void;
    reject(err: unknown): void;
    cleanup(): void;
}

/**
 * The JSON-RPC side of one connection, whatever the protocol on top (the MCP SDK's Protocol is the
 * model): answers incoming requests through a dispatcher, tracks them in flight so they can be
 * cancelled, maps errors to error responses, and matches the peer's responses to the requests sent
 * to it. Messages to the peer go out on the standalone transport or, failing that, on a route's.
 */
export class RpcConnection {
    /** Not a Map: see InFlight. */
    private readonly inflight = new InFlight<RequestAbort>();
    private readonly pending = new Map<RequestId, PendingRequest>();
    private outbox: PendingRequest[] = [];
    private readonly routes = new Map<string, Set<Transport>>();
    private nextRequestId = 1;
    private closed = false;
    /** Hears the peer's other notifications (`notifications/initialized`, `notifications/roots/list_changed`): an embedder's hook. */
    onNotification?: (method: string) => void;

    constructor(
        private readonly dispatch: RequestDispatcher,
        /** The transport for messages not tied to a request (GET stream, stdout), when one is open. */
        private readonly standalone: () => Transport | undefined,
        private readonly log: Logger,
    ) {}

    get isClosed(): boolean {
        return this.closed;
    }

    /** Whether a request from the peer is being answered. */
    get busy(): boolean {
        return this.inflight.size > 0;
    }

    /** Handles one decoded message; a request's response goes back on `reply`. */
    receive(message: JsonRpcMessage, reply: Transport): void {
        if (!('method' in message)) {
            this.handleResponse(message);
        } else if ('id' in message) {
            void this.answer(message, reply);
        } else {
            this.handleNotification(message);
        }
    }

    /**
     * Answers a request and sends the response on `reply`; never throws. `serve` answers it instead
     * of the connection's dispatcher (a router that chose another revision for it); either way it is
     * this connection's request: tracked in flight, cancellable, aborted on close.
     */
    answer(request: JsonRpcRequest, reply: Transport, serve?: RequestDispatcher): Promise<void> {
        const dispatch = serve === undefined ? this.tracked : (message: JsonRpcRequest, via: Transport, abort: RequestAbort) => this.trackedBy(serve, message, via, abort);
        return answerRequest(request, reply, new RequestAbort(reply), dispatch, this.log, 'session');
    }

    /** Computes the response to one request without sending it (in-process callers: benches); never throws. */
    handleRequest(request: JsonRpcRequest, reply: Transport, abort = new RequestAbort(reply)): Promise<JsonRpcResponse> {
        return responseTo(request, reply, abort, this.tracked, this.log, 'session');
    }

    /**
     * The dispatcher, with the request tracked in flight (so it can be cancelled) while it runs.
     * Written out rather than through trackedBy: one call fewer on every session request (2-3 %
     * of a stdio greet's CPU, measured in process).
     */
    private readonly tracked: RequestDispatcher = async (request, reply, abort) => {
        this.enter(request, abort);
        try {
            return await this.dispatch(request, reply, abort);
        } finally {
            this.inflight.delete(request.id);
        }
    };

    /** What `tracked` does, for a handler a router chose. */
    private async trackedBy(serve: RequestDispatcher, request: JsonRpcRequest, reply: Transport, abort: RequestAbort): Promise<Record<string, unknown>> {
        this.enter(request, abort);
        try {
            return await serve(request, reply, abort);
        } finally {
            this.inflight.delete(request.id);
        }
    }

    private enter(request: JsonRpcRequest, abort: RequestAbort): void {
        // Ids are unique per session while in flight (JSON-RPC, MCP): a duplicate is refused and
        // leaves the first alone (its abort, its waiter, the session's business for the idle sweep).
        if (this.inflight.has(request.id)) {
            throw new RpcError(ErrorCodes.InvalidRequest, `Invalid Request: request id ${JSON.stringify(request.id)} is already in flight in this session`);
        }
        this.inflight.set(request.id, abort);
    }

    /** Aborts the in-flight request the peer cancelled. */
    handleNotification(notification: JsonRpcNotification): void {
        if (notification.method === 'notifications/cancelled') {
            const requestId = notification.params?.requestId;
            if (typeof requestId === 'string' || typeof requestId === 'number') {
                this.inflight.get(requestId)?.abort(new RpcError(ErrorCodes.InvalidRequest, 'Request cancelled by the client'));
            }
        } else {
            this.onNotification?.(notification.method);
        }
    }

    /** `reply` lost the connection a request came on: aborts that request, and none with its id that came another way. */
    abortRequest(id: RequestId, reply: Transport, reason: string): void {
        const abort = this.inflight.get(id);
        if (abort?.reply === reply) {
            abort.abort(new RpcError(ErrorCodes.ConnectionClosed, reason));
        }
    }

    handleResponse(response: JsonRpcResponse): void {
        const pending = response.id === null ? undefined : this.pending.get(response.id);
        if (!pending) {
            this.log.debug(`[session] response for unknown request id ${String(response.id)}`);
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

    /** Sends a notification on the standalone transport, else on the first of `route`'s that takes it. */
    notify(method: string, params: Record<string, unknown>, route?: string): void {
        const message: JsonRpcNotification = { jsonrpc: '2.0', method, params };
        if (this.standalone()?.send(message)) {
            return;
        }
        for (const transport of (route && this.routes.get(route)) || []) {
            if (transport.send(message)) {
                return;
            }
        }
    }

    /** Sends a request to the peer, exactly once, as soon as a transport takes it. */
    request(method: string, params: Record<string, unknown>, options: OutgoingRequestOptions): Promise<Record<string, unknown>> {
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
                    this.notify('notifications/cancelled', { requestId: id, reason: errorMessage(signal.reason), ...options.cancelParams }, options.route);
                }
                reject(signal.reason);
            };
            const pending: PendingRequest = {
                id,
                message: { jsonrpc: '2.0', id, method, params },
                route: options.route,
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

    /** Lets `transport` carry messages routed by `key` (a response stream waiting on that key). */
    addRoute(key: string, transport: Transport): void {
        let transports = this.routes.get(key);
        if (!transports) {
            transports = new Set();
            this.routes.set(key, transports);
        }
        transports.add(transport);
        this.flush();
    }

    removeRoute(key: string, transport: Transport): void {
        const transports = this.routes.get(key);
        transports?.delete(transport);
        if (transports?.size === 0) {
            this.routes.delete(key);
        }
    }

    /** Delivers queued requests; transports call it when a stream opens. */
    flush(): void {
        if (this.outbox.length === 0) {
            return;
        }
        this.outbox = this.outbox.filter(pending => !this.deliver(pending));
    }

    /** Aborts what is in flight and rejects what the peer never answered. */
    close(reason: string): void {
        if (this.closed) {
            return;
        }
        this.closed = true;
        for (const abort of this.inflight.values()) {
            abort.abort(new RpcError(ErrorCodes.ConnectionClosed, reason));
        }
        for (const pending of [...this.pending.values()]) {
            this.settle(pending);
            pending.reject(new RpcError(ErrorCodes.ConnectionClosed, `${reason} before the client answered`));
        }
        // What was sent before the close (tasks cancelled on shutdown) is written before the caller goes on.
        this.standalone()?.flush?.();
    }

    private deliver(pending: PendingRequest): boolean {
        const candidates: (Transport | undefined)[] = [pending.via, this.standalone()];
        if (pending.route) {
            candidates.push(...(this.routes.get(pending.route) ?? []));
        }
        for (const transport of candidates) {
            if (transport?.send(pending.message)) {
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
}
