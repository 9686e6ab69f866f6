// A small MCP client over Streamable HTTP for the owner connection: initialize, requests with
// timeouts, the server's requests answered by our handlers (elicitation, sampling, ping) and its
// notifications passed on. The MCP SDK's Client did this before, at some 700 KB of bundle.
import { Methods, PROTOCOL_2025 } from '@mcp-tasks/server/contract';
import { classify, errorOf, isRecord, type JsonRpcMessage, type JsonRpcRequest, type Params, type RequestId } from './jsonRpc';
import { connectionClosed, RpcError, RpcErrorCodes } from './rpcError';
import { StreamableHttpClientTransport, type StreamOptions } from './streamableHttp';

/** The MCP SDK's default: a request with no answer for a minute fails. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export type RequestHandler = (params: Params, signal: AbortSignal) => Promise<object>;

export interface RpcClientOptions {
    url: string;
    token: string;
    clientInfo: { name: string; version: string };
    capabilities: Record<string, unknown>;
    /** Answers the server's requests by method; any other method gets "Method not found". */
    handlers?: Record<string, RequestHandler>;
    onNotification?(method: string, params: Params): void;
    /** The connection is gone for good (not called after close()). */
    onLost?(reason: string): void;
    /** Something the connection survives: a malformed message, a dropped stream. */
    onError?(message: string): void;
    stream?: StreamOptions;
    /** Whether the server's process still runs; asked before each request carries the token (see StreamableHttpClientTransport). */
    peerAlive?: () => boolean;
}

interface Pending {
    resolve(result: unknown): void;
    reject(err: Error): void;
    timer: NodeJS.Timeout;
}

export class RpcClient {
    private readonly transport: StreamableHttpClientTransport;
    private readonly pending = new Map<RequestId, Pending>();
    /** The server's requests being answered, to abort on notifications/cancelled or close. */
    private readonly answering = new Map<RequestId, AbortController>();
    private nextId = 0;
    private isClosed = false;

    constructor(private readonly options: RpcClientOptions) {
        this.transport = new StreamableHttpClientTransport(
            options.url,
            options.token,
            { message: value => this.receive(value), lost: reason => this.lose(reason), error: message => options.onError?.(message) },
            options.stream,
            options.peerAlive,
        );
    }

    get closed(): boolean {
        return this.isClosed;
    }

    get sessionId(): string | undefined {
        return this.transport.sessionId;
    }

    /** initialize, notifications/initialized, then the GET stream. Closes the client if any of it fails. */
    async connect(): Promise<void> {
        try {
            const result = await this.request(Methods.initialize, { protocolVersion: PROTOCOL_2025, capabilities: this.options.capabilities, clientInfo: this.options.clientInfo });
            if (!isRecord(result) || typeof result.protocolVersion !== 'string') {
                throw new Error('The server sent an invalid initialize result');
            }
            if (result.protocolVersion !== PROTOCOL_2025) {
                throw new Error(`The server's protocol version is not supported: ${result.protocolVersion}`);
            }
            this.transport.protocolVersion = result.protocolVersion;
            await this.notify(Methods.initialized);
        } catch (err) {
            this.close();
            throw err;
        }
        this.transport.openStream();
    }

    /**
     * Sends a request and resolves with its result; rejects with an RpcError for an error answer.
     * `signal` stops waiting: the request rejects with the signal's reason and the server is told (notifications/cancelled).
     */
    request(method: string, params: Params = {}, timeoutMs = DEFAULT_REQUEST_TIMEOUT_MS, signal?: AbortSignal): Promise<unknown> {
        if (this.isClosed) {
            return Promise.reject(connectionClosed());
        }
        if (signal?.aborted) {
            return Promise.reject(signal.reason as Error);
        }
        const id = this.nextId++;
        const giveUp = (error: Error, reason: string) => {
            const pending = this.settle(id);
            if (pending) {
                pending.reject(error);
                this.notify(Methods.cancelled, { requestId: id, reason }).catch(err => this.options.onError?.(`cannot send the cancellation: ${String(err)}`));
            }
        };
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => giveUp(new RpcError(RpcErrorCodes.RequestTimeout, 'Request timed out', { timeout: timeoutMs }), 'Request timed out'), timeoutMs);
            if (!signal) {
                // The usual request (tasks/get, tools/list): no listener to add or remove.
                this.pending.set(id, { resolve, reject, timer });
            } else {
                const onAbort = () => giveUp(signal.reason as Error, 'Cancelled by the user');
                signal.addEventListener('abort', onAbort, { once: true });
                const forget = () => signal.removeEventListener('abort', onAbort);
                this.pending.set(id, { resolve: value => (forget(), resolve(value)), reject: err => (forget(), reject(err)), timer });
            }
            const message: JsonRpcRequest = { jsonrpc: '2.0', id, method, params };
            this.transport.send(message).then(
                // The reply ended without the answer: the server hung up on this request.
                () => this.settle(id)?.reject(connectionClosed()),
                err => this.settle(id)?.reject(this.isClosed ? connectionClosed() : (err as Error)),
            );
        });
    }

    notify(method: string, params?: Params): Promise<void> {
        if (this.isClosed) {
            return Promise.reject(connectionClosed());
        }
        return this.transport.send(params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method });
    }

    /** Ends the connection: requests in flight fail with "Connection closed", handlers are aborted. */
    close(): void {
        if (this.isClosed) {
            return;
        }
        this.isClosed = true;
        this.transport.close();
        for (const id of [...this.pending.keys()]) {
            this.settle(id)?.reject(connectionClosed());
        }
        for (const controller of this.answering.values()) {
            controller.abort(connectionClosed());
        }
        this.answering.clear();
    }

    private lose(reason: string): void {
        if (this.isClosed) {
            return;
        }
        this.close();
        this.options.onLost?.(reason);
    }

    private settle(id: RequestId): Pending | undefined {
        const pending = this.pending.get(id);
        if (pending) {
            this.pending.delete(id);
            clearTimeout(pending.timer);
        }
        return pending;
    }

    private receive(value: unknown): void {
        const incoming = classify(value);
        switch (incoming.kind) {
            case 'response': {
                const pending = this.settle(incoming.message.id);
                if (!pending) {
                    this.options.onError?.(`a response for an unknown request id ${String(incoming.message.id)}`);
                    return;
                }
                const error = errorOf(incoming.message);
                if (error) {
                    pending.reject(new RpcError(error.code, error.message, error.data));
                } else {
                    pending.resolve(incoming.message.result);
                }
                return;
            }
            case 'request':
                this.answer(incoming.message);
                return;
            case 'notification': {
                const params = incoming.message.params ?? {};
                if (incoming.message.method === Methods.cancelled) {
                    const requestId = params.requestId;
                    if (typeof requestId === 'string' || typeof requestId === 'number') {
                        this.answering.get(requestId)?.abort(params.reason);
                    }
                    return;
                }
                this.options.onNotification?.(incoming.message.method, params);
                return;
            }
            case 'invalid':
                this.options.onError?.(`ignoring a message from the server: ${incoming.reason}`);
        }
    }

    /** Runs the handler for one of the server's requests and POSTs its result or error back. */
    private answer(request: JsonRpcRequest): void {
        const handler = request.method === Methods.ping ? async () => ({}) : this.options.handlers?.[request.method];
        if (!handler) {
            this.reply({ jsonrpc: '2.0', id: request.id, error: { code: RpcErrorCodes.MethodNotFound, message: 'Method not found' } });
            return;
        }
        const controller = new AbortController();
        this.answering.set(request.id, controller);
        Promise.resolve()
            .then(() => handler(request.params ?? {}, controller.signal))
            .then(
                result => {
                    if (!controller.signal.aborted) {
                        // A JSON-RPC result is an object; handlers return their typed shapes.
                        this.reply({ jsonrpc: '2.0', id: request.id, result: result as Record<string, unknown> });
                    }
                },
                (err: { code?: unknown; message?: unknown; data?: unknown }) => {
                    if (!controller.signal.aborted) {
                        const code = Number.isSafeInteger(err?.code) ? (err.code as number) : RpcErrorCodes.InternalError;
                        const message = typeof err?.message === 'string' ? err.message : 'Internal error';
                        this.reply({ jsonrpc: '2.0', id: request.id, error: err?.data === undefined ? { code, message } : { code, message, data: err.data } });
                    }
                },
            )
            .finally(() => {
                if (this.answering.get(request.id) === controller) {
                    this.answering.delete(request.id);
                }
            });
    }

    private reply(message: JsonRpcMessage): void {
        if (this.isClosed) {
            return;
        }
        this.transport.send(message).catch(err => this.options.onError?.(`cannot send the response: ${err instanceof Error ? err.message : String(err)}`));
    }
}
