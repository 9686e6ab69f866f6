/**
 * The one raw HTTP client of the suites: JSON-RPC over Streamable HTTP through node:http, for
 * everything the SDK client hides (status codes, headers, a forged Host, an Origin, bad bodies,
 * chunked uploads, the GET stream). It checks nothing itself; it reports what came back,
 * malformed or not.
 */
import { once } from 'node:events';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { PROTOCOL_2025 } from '../../server/src/contract.js';
import { parseSse, SseSplitter, type SseEvent } from './sse.js';
import { HUNG_MS } from './wait.js';

export type Msg = Record<string, unknown> & { id?: unknown; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { code: number; message: string } };

export { PROTOCOL_2025 };
export const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL_2025, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

export interface JsonRpcError {
    jsonrpc: string;
    id: unknown;
    error: { code: number; message: string };
}

/** One HTTP answer, whole. */
export class HttpReply {
    constructor(
        readonly status: number,
        readonly headers: IncomingHttpHeaders,
        readonly body: string,
        /** The JSON-RPC messages of the body (one for JSON, each `data:` of an SSE body). */
        readonly messages: Msg[],
        /** Set when the body claimed JSON or SSE but did not parse. */
        readonly malformed?: string,
    ) {}

    /** A response header as one string (undefined when absent). */
    header(name: string): string | undefined {
        const value = this.headers[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : value;
    }

    json<T = Msg>(): T {
        return JSON.parse(this.body) as T;
    }
}

export interface SendOptions {
    method?: string;
    /** Added to (or, with undefined, removed from) the defaults; `host` forges the Host header. */
    headers?: Record<string, string | undefined>;
    /** Bounds a hung exchange only. */
    timeoutMs?: number;
    /** On a 200, resolve as soon as headers arrive, then drop the connection (for GET streams). */
    headersOnly?: boolean;
    /** Another path than the URL's (and its query). */
    path?: string;
    /** Send the body in 1 KiB pieces with chunked transfer encoding, declaring no length. */
    chunked?: boolean;
    /** Each SSE message as soon as it arrives (a response that stays open a while). */
    onMessage?: (message: Msg) => void;
    /**
     * Send once more a request cut on a kept-alive socket the server had just closed (Node's
     * documented keep-alive race, seen under load). Off by default: tests that cut connections on
     * purpose must see the cut.
     */
    resendIfKeepAliveCut?: boolean;
}

/** Splits a JSON or SSE body into JSON-RPC messages; `malformed` says what did not parse. */
export function parseBody(contentType: string, body: string): { messages: Msg[]; malformed?: string } {
    try {
        if (contentType.includes('text/event-stream')) {
            return { messages: parseSse<Msg>(body) };
        }
        if (body === '') {
            return { messages: [] };
        }
        if (!contentType.includes('application/json')) {
            return { messages: [], malformed: `unexpected content-type ${contentType || '(none)'} with a body` };
        }
        return { messages: [JSON.parse(body) as Msg] };
    } catch (err) {
        return { messages: [], malformed: `${(err as Error).message}: ${body.slice(0, 200)}` };
    }
}

/**
 * One exchange, exactly as given: these headers and no others. Never rejects for an HTTP status,
 * only for a transport failure or a hung exchange. `agent: false` (the default) leaves nothing open.
 */
export function exchange(url: string, options: SendOptions & { body?: string; agent?: Agent | false } = {}): Promise<HttpReply> {
    return exchangeOnce(url, options, options.resendIfKeepAliveCut === true);
}

/**
 * `again`: whether a request that failed on a kept-alive socket the server had just closed (it
 * never read the request: Node's documented race of keep-alive, seen under load when a socket sat
 * idle near the server's keep-alive timeout) is sent once more on a fresh one.
 */
function exchangeOnce(url: string, options: SendOptions & { body?: string; agent?: Agent | false }, again: boolean): Promise<HttpReply> {
    const body = options.body;
    const method = options.method ?? 'POST';
    const headers = Object.fromEntries(Object.entries(options.headers ?? {}).filter(([, value]) => value !== undefined)) as Record<string, string>;
    const timeoutMs = options.timeoutMs ?? HUNG_MS;
    return new Promise((resolve, reject) => {
        const req = request(url, { method, headers, agent: options.agent ?? false, ...(options.path ? { path: options.path } : {}) }, res => {
            const contentType = String(res.headers['content-type'] ?? '');
            if (options.headersOnly && res.statusCode === 200) {
                clearTimeout(timer);
                resolve(new HttpReply(res.statusCode, res.headers, '', []));
                res.destroy();
                return;
            }
            const live = options.onMessage && contentType.includes('text/event-stream') ? new SseSplitter<Msg>(options.onMessage) : undefined;
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => {
                chunks.push(chunk);
                live?.push(chunk);
            });
            res.on('end', () => {
                clearTimeout(timer);
                live?.end();
                const text = Buffer.concat(chunks).toString('utf8');
                const parsed = parseBody(contentType, text);
                if (options.onMessage && !live) {
                    parsed.messages.forEach(options.onMessage);
                }
                resolve(new HttpReply(res.statusCode ?? 0, res.headers, text, parsed.messages, parsed.malformed));
            });
            res.on('error', err => {
                clearTimeout(timer);
                reject(err);
            });
        });
        const timer = setTimeout(() => req.destroy(new Error(`no complete answer to ${method} within ${timeoutMs} ms (a hung test)`)), timeoutMs);
        req.on('error', (err: NodeJS.ErrnoException) => {
            clearTimeout(timer);
            if (again && req.reusedSocket && err.code === 'ECONNRESET') {
                resolve(exchangeOnce(url, options, false));
                return;
            }
            reject(err);
        });
        if (options.chunked && body !== undefined) {
            for (let i = 0; i < body.length; i += 1024) {
                req.write(body.slice(i, i + 1024));
            }
            req.end();
        } else {
            req.end(body);
        }
    });
}

export interface StreamHandle {
    status: number;
    headers: IncomingHttpHeaders;
    /** The whole answer when the stream was refused (its status is not 200); empty otherwise. */
    reply: HttpReply;
    /** Resolves when the stream has closed, for whatever reason. */
    closed: Promise<void>;
    close(): void;
}

/**
 * One JSON-RPC session over Streamable HTTP. Each instance has its own keep-alive agent unless
 * one is shared; `destroy()` cuts every connection at once (a client that vanishes).
 */
export class RawHttp {
    sessionId?: string;
    /** When set, the round-trip time (ms) of each call() but tasks/result is appended (load reports, never asserted). */
    latencies?: number[];
    private nextId = 1;

    constructor(
        readonly url: string,
        readonly baseHeaders: Record<string, string> = {},
        readonly agent = new Agent({ keepAlive: true, maxSockets: 16 }),
    ) {}

    /** One exchange on the session: JSON and SSE accepted on POST, the session id and base headers on all. */
    send(body: string | object | undefined, options: SendOptions = {}): Promise<HttpReply> {
        const method = options.method ?? 'POST';
        const headers: Record<string, string | undefined> = {
            ...(method === 'POST' ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } : {}),
            ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
            ...this.baseHeaders,
            ...options.headers,
        };
        const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
        return exchange(this.url, { ...options, body: payload, method, headers, agent: this.agent });
    }

    /** POSTs a body (an object, or text as it is) with extra headers. */
    post(body: string | object, headers: Record<string, string | undefined> = {}): Promise<HttpReply> {
        return this.send(body, { headers });
    }

    async initialize(options: { capabilities?: Record<string, unknown>; name?: string } = {}): Promise<Msg> {
        const reply = await this.send({ ...INITIALIZE, params: { ...INITIALIZE.params, capabilities: options.capabilities ?? {}, clientInfo: { name: options.name ?? 'raw', version: '1' } } });
        const sessionId = reply.headers['mcp-session-id'];
        if (reply.status !== 200 || typeof sessionId !== 'string') {
            throw new Error(`initialize failed: ${reply.status} ${reply.body}`);
        }
        this.sessionId = sessionId;
        await this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        return reply.messages[0]!;
    }

    /** Sends a request and returns every message of its answer (one for JSON, several for SSE). */
    async rpc(method: string, params?: Record<string, unknown>, options: SendOptions = {}): Promise<{ id: number; reply: HttpReply }> {
        const id = this.nextId++;
        const reply = await this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }, options);
        return { id, reply };
    }

    /** Sends a request and returns its final response (result or error); throws on a transport error. */
    async call(method: string, params?: Record<string, unknown>, options: SendOptions = {}): Promise<Msg> {
        const started = performance.now();
        const { id, reply } = await this.rpc(method, params, options);
        // tasks/result waits for the task by design: only the other methods measure the server.
        if (method !== 'tasks/result') {
            this.latencies?.push(performance.now() - started);
        }
        const response = reply.messages.find(m => m.id === id && ('result' in m || 'error' in m));
        if (!response) {
            throw new Error(`no response to ${method}: HTTP ${reply.status} ${reply.body.slice(0, 300)}`);
        }
        return response;
    }

    /** Like call(), but a JSON-RPC error becomes an exception. */
    async result(method: string, params?: Record<string, unknown>, options?: SendOptions): Promise<Record<string, unknown>> {
        const response = await this.call(method, params, options);
        if (response.error) {
            throw Object.assign(new Error(`${method}: ${response.error.message}`), { code: response.error.code });
        }
        return response.result!;
    }

    /** tools/call with `task: {}`: the created task (the CreateTaskResult's `task`). */
    async createTask(args: Record<string, unknown>, name = 'slow_compute'): Promise<{ taskId: string } & Record<string, unknown>> {
        return (await this.result('tools/call', { name, arguments: args, task: {} })).task as { taskId: string } & Record<string, unknown>;
    }

    /** Opens the session's GET stream on a connection of its own; every message goes to `onMessage`. */
    openStream(onMessage: (message: Msg) => void, headers: Record<string, string> = {}): Promise<StreamHandle> {
        return this.openEvents('GET', undefined, onMessage, headers);
    }

    /**
     * A GET (the session's stream, or with a Last-Event-ID header a resumed one) or a POST whose
     * answer is read as it comes, on a connection of its own that close() drops; every message goes
     * to `onMessage`, and every event (priming ones included) to `onEvent` first.
     */
    openEvents(method: 'GET' | 'POST', body: object | undefined, onMessage: (message: Msg) => void, headers: Record<string, string> = {}, onEvent?: (event: SseEvent<Msg>) => void): Promise<StreamHandle> {
        const accept = method === 'GET' ? { accept: 'text/event-stream' } : { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
        return new Promise((resolve, reject) => {
            const req = request(
                this.url,
                { method, headers: { ...accept, ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}), ...this.baseHeaders, ...headers }, agent: false },
                res => {
                    const status = res.statusCode ?? 0;
                    // once() rejects when 'error' comes first (a reset): either way the stream is closed.
                    const closed = once(res, 'close').then(
                        () => undefined,
                        () => undefined,
                    );
                    const handle = (reply: HttpReply): StreamHandle => ({ status, headers: res.headers, reply, closed, close: () => req.destroy() });
                    if (status !== 200 || !String(res.headers['content-type'] ?? '').includes('text/event-stream')) {
                        const chunks: Buffer[] = [];
                        res.on('data', (chunk: Buffer) => chunks.push(chunk));
                        res.on('end', () => {
                            const text = Buffer.concat(chunks).toString('utf8');
                            const parsed = parseBody(String(res.headers['content-type'] ?? ''), text);
                            if (status === 200) {
                                parsed.messages.forEach(onMessage);
                            }
                            resolve(handle(new HttpReply(status, res.headers, text, parsed.messages, parsed.malformed)));
                        });
                        res.on('error', reject);
                        return;
                    }
                    resolve(handle(new HttpReply(status, res.headers, '', [])));
                    const events = new SseSplitter<Msg>(onMessage, onEvent);
                    res.setEncoding('utf8');
                    res.on('data', (chunk: string) => events.push(chunk));
                    res.on('end', () => events.end());
                    res.on('error', () => undefined);
                },
            );
            req.on('error', err => reject(err));
            req.end(body === undefined ? undefined : JSON.stringify(body));
        });
    }

    /** DELETEs the session (best effort) and closes this client's idle connections. */
    async close(): Promise<void> {
        if (this.sessionId) {
            await this.send(undefined, { method: 'DELETE' }).catch(() => undefined);
        }
        this.agent.destroy();
    }

    /** Drops every connection without a word, as a crashed client would. */
    destroy(): void {
        this.agent.destroy();
    }
}
