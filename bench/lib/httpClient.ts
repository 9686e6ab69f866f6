// A raw keep-alive MCP client over HTTP for the benchmark: node:http with a keep-alive Agent
// (or, for comparison, the global fetch), hand-built request bodies, one MCP session reused.
import { Agent, request, type IncomingMessage } from 'node:http';
import { PROTOCOL_2025 } from '../../server/src/contract.js';

export { PROTOCOL_2025 };

export interface RpcResponse {
    id?: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string };
    method?: string;
}

export interface PostReply {
    status: number;
    contentType: string;
    sessionId?: string;
    text: string;
}

/** How a POST reaches the server. */
export interface Poster {
    post(url: URL, headers: Record<string, string>, body: string): Promise<PostReply>;
    close(): void;
}

/** node:http with a keep-alive Agent: one socket per request in flight, reused. */
export class NodeHttpPoster implements Poster {
    readonly agent: Agent;

    constructor(maxSockets: number) {
        this.agent = new Agent({ keepAlive: true, maxSockets, keepAliveMsecs: 30_000 });
    }

    post(url: URL, headers: Record<string, string>, body: string): Promise<PostReply> {
        return new Promise((resolve, reject) => {
            const req = request(
                { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent: this.agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
                res => collect(res).then(resolve, reject),
            );
            req.on('error', reject);
            req.end(body);
        });
    }

    close(): void {
        this.agent.destroy();
    }
}

/** Node's global fetch (undici inside), keep-alive by default. */
export class FetchPoster implements Poster {
    async post(url: URL, headers: Record<string, string>, body: string): Promise<PostReply> {
        const res = await fetch(url, { method: 'POST', headers, body });
        return { status: res.status, contentType: res.headers.get('content-type') ?? '', sessionId: res.headers.get('mcp-session-id') ?? undefined, text: await res.text() };
    }

    close(): void {}
}

function collect(res: IncomingMessage): Promise<PostReply> {
    return new Promise((resolve, reject) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
            const session = res.headers['mcp-session-id'];
            resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? '', sessionId: typeof session === 'string' ? session : undefined, text });
        });
        res.on('error', reject);
    });
}

/** The JSON-RPC response in a reply: the JSON body, or the response event of an SSE stream. */
export function parseReply(reply: PostReply): RpcResponse {
    if (reply.contentType.startsWith('text/event-stream')) {
        let found: RpcResponse | undefined;
        for (const line of reply.text.split('\n')) {
            // A priming event's data is empty: it carries no message.
            if (line.startsWith('data: ') && line.length > 6) {
                const message = JSON.parse(line.slice(6)) as RpcResponse;
                if ('result' in message || 'error' in message) {
                    found = message;
                }
            }
        }
        if (!found) {
            throw new Error(`HTTP ${reply.status}: no response in the event stream`);
        }
        return found;
    }
    if (reply.text === '') {
        return {};
    }
    return JSON.parse(reply.text) as RpcResponse;
}

export class RpcFailure extends Error {
    constructor(
        readonly code: number,
        message: string,
    ) {
        super(`${message} (${code})`);
    }
}

/** The protocol revision without sessions (SEP-2575): `_meta` and headers on every request. */
export const PROTOCOL_2026 = '2026-07-28';
const STATELESS_META = JSON.stringify({
    'io.modelcontextprotocol/protocolVersion': PROTOCOL_2026,
    'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    'io.modelcontextprotocol/clientInfo': { name: 'mcp-tasks-bench', version: '1' },
});

/**
 * A 2026-07-28 request's params and its Mcp-Method / Mcp-Name (SEP-2243), built once per distinct
 * params text: the hot loops repeat the same few, so the client's own cost stays that of a lookup.
 */
export class Encoder2026 {
    private readonly cache = new Map<string, { params: string; name?: string }>();

    encode(method: string, paramsJson: string): { params: string; name?: string } {
        const key = `${method} ${paramsJson}`;
        let out = this.cache.get(key);
        if (!out) {
            const params = JSON.parse(paramsJson) as Record<string, unknown>;
            const value = method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined;
            const rest = paramsJson.trim().slice(1);
            out = { params: `{"_meta":${STATELESS_META}${rest.startsWith('}') ? '' : ','}${rest}`, name: typeof value === 'string' ? value : undefined };
            this.cache.set(key, out);
        }
        return out;
    }
}

/** One MCP session over HTTP; concurrent calls share it (each takes its own pooled socket). */
export class HttpMcpSession {
    private nextId = 1;
    private readonly headers: Record<string, string>;
    /** Set for a 2026-07-28 client: no session, `_meta` and headers per request. */
    private stateless?: Encoder2026;

    private constructor(
        readonly url: URL,
        readonly poster: Poster,
        readonly sessionId: string | undefined,
        extraHeaders: Record<string, string> = {},
    ) {
        this.headers = {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': PROTOCOL_2025,
            ...extraHeaders,
            ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
        };
    }

    /** initialize + notifications/initialized; `extraHeaders` (a bearer token) go on every request. */
    static async open(url: string, poster: Poster, capabilities: Record<string, unknown> = {}, extraHeaders: Record<string, string> = {}): Promise<HttpMcpSession> {
        const endpoint = new URL(url);
        const init = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL_2025, capabilities, clientInfo: { name: 'mcp-tasks-bench', version: '1' } } });
        const reply = await poster.post(endpoint, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extraHeaders }, init);
        const response = parseReply(reply);
        if (response.error || !reply.sessionId) {
            throw new Error(`initialize failed: HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
        }
        const session = new HttpMcpSession(endpoint, poster, reply.sessionId, extraHeaders);
        await session.notify('notifications/initialized');
        return session;
    }

    /** A 2026-07-28 client (with the tasks extension): no initialize, every request on its own. */
    static client2026(url: string, poster: Poster, extraHeaders: Record<string, string> = {}): HttpMcpSession {
        const session = new HttpMcpSession(new URL(url), poster, undefined, { ...extraHeaders, 'mcp-protocol-version': PROTOCOL_2026 });
        session.stateless = new Encoder2026();
        return session;
    }

    /** A session-less client, for the floor (which answers anything). */
    static bare(url: string, poster: Poster): HttpMcpSession {
        return new HttpMcpSession(new URL(url), poster, undefined);
    }

    async notify(method: string, params?: Record<string, unknown>): Promise<void> {
        await this.poster.post(this.url, this.headers, JSON.stringify(params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method }));
    }

    /** Sends a request whose params are already JSON text (the hot loops build them once). */
    async callRaw(method: string, paramsJson: string): Promise<Record<string, unknown>> {
        const id = this.nextId++;
        let headers = this.headers;
        if (this.stateless) {
            const encoded = this.stateless.encode(method, paramsJson);
            paramsJson = encoded.params;
            headers = { ...headers, 'mcp-method': method, ...(encoded.name !== undefined ? { 'mcp-name': encoded.name } : {}) };
        }
        const reply = await this.poster.post(this.url, headers, `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${paramsJson}}`);
        if (reply.status !== 200) {
            throw new Error(`${method}: HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
        }
        const response = parseReply(reply);
        if (response.error) {
            throw new RpcFailure(response.error.code, `${method}: ${response.error.message}`);
        }
        return response.result ?? {};
    }

    call(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
        return this.callRaw(method, JSON.stringify(params));
    }

    /**
     * Opens the standalone GET stream and counts the messages of `method` it carries. The count
     * looks for the method name in the raw text, so it costs the client almost nothing.
     */
    openStream(method: string): Promise<EventCounter> {
        return new Promise((resolve, reject) => {
            const agent = new Agent({ keepAlive: false });
            const req = request(
                { host: this.url.hostname, port: this.url.port, path: this.url.pathname, method: 'GET', agent, headers: { ...this.headers, accept: 'text/event-stream' } },
                res => {
                    if (res.statusCode !== 200) {
                        reject(new Error(`GET stream: HTTP ${res.statusCode}`));
                        res.resume();
                        return;
                    }
                    resolve(new EventCounter(res, method, () => agent.destroy()));
                },
            );
            req.on('error', reject);
            req.end();
        });
    }
}

export class EventCounter {
    count = 0;
    private carry = '';

    constructor(
        private readonly res: IncomingMessage,
        method: string,
        private readonly release: () => void,
    ) {
        const needle = `"method":"${method}"`;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
            const text = this.carry + chunk;
            let at = text.indexOf(needle);
            while (at >= 0) {
                this.count++;
                at = text.indexOf(needle, at + needle.length);
            }
            this.carry = text.slice(-needle.length + 1);
        });
        res.on('error', () => undefined);
    }

    close(): void {
        this.res.destroy();
        this.release();
    }
}
