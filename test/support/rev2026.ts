import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mirroredName } from '../../server/src/contract.js';
import { exchange, type HttpReply, type Msg } from './rawHttp.js';
import { SseSplitter } from './sse.js';
import { HUNG_MS } from './wait.js';

/** A 2026-07-28 client's per-request `_meta` (SEP-2575); the tasks extension unless told otherwise. */
export const V2 = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const ALL_CAPABILITIES = { elicitation: {}, sampling: {}, extensions: { [TASKS_EXTENSION]: {} } };

/** The error the last message of an exchange carries; fails the test when it carries none. */
export function errorOf(messages: Msg[]): { code: number; message: string; data?: Record<string, unknown> } {
    const error = messages.at(-1)?.error as { code: number; message: string; data?: Record<string, unknown> } | undefined;
    assert.ok(error, `expected an error, got ${JSON.stringify(messages)}`);
    return error;
}

export function meta(capabilities: Record<string, unknown> = ALL_CAPABILITIES, version = V2): Record<string, unknown> {
    return {
        'io.modelcontextprotocol/protocolVersion': version,
        'io.modelcontextprotocol/clientCapabilities': capabilities,
        'io.modelcontextprotocol/clientInfo': { name: 'stateless-test', version: '1' },
    };
}

export interface PostOptions {
    /** Added to, or (undefined) removed from, the conformant headers. */
    headers?: Record<string, string | undefined>;
    /** The whole params, _meta included, as given (no _meta added). */
    raw?: boolean;
    capabilities?: Record<string, unknown>;
}

let nextId = 1;

/**
 * Raw 2026-07-28 requests over HTTP: one POST each, with the standard headers and `_meta`, and no session.
 * `server` is a URL, or a server whose URL is read at each request (a describe's `httpServerPerSuite`).
 */
export class Http2026Client {
    constructor(
        private readonly server: string | { readonly url: string },
        private readonly token?: string,
        private readonly capabilities: Record<string, unknown> = ALL_CAPABILITIES,
    ) {}

    get url(): string {
        return typeof this.server === 'string' ? this.server : this.server.url;
    }

    headersFor(method: string, params: Record<string, unknown>, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
        const name = mirroredName(method, params);
        return {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': V2,
            'mcp-method': method,
            ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
            ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
            ...extra,
        };
    }

    bodyFor(method: string, params: Record<string, unknown>, options: PostOptions = {}, id: number = nextId++): string {
        const full = options.raw ? params : { ...params, _meta: { ...meta(options.capabilities ?? this.capabilities), ...(params._meta as object | undefined) } };
        return JSON.stringify({ jsonrpc: '2.0', id, method, params: full });
    }

    post(method: string, params: Record<string, unknown> = {}, options: PostOptions = {}): Promise<HttpReply> {
        return exchange(this.url, { headers: this.headersFor(method, params, options.headers), body: this.bodyFor(method, params, options) });
    }

    /** The result of a request that must succeed; the final message of an SSE answer. */
    async call(method: string, params: Record<string, unknown> = {}, options: PostOptions = {}): Promise<Record<string, unknown>> {
        const reply = await this.post(method, params, options);
        const last = reply.messages.at(-1);
        if (reply.status !== 200 || !last?.result) {
            throw new Error(`${method} failed: HTTP ${reply.status} ${reply.body.slice(0, 500)}`);
        }
        return last.result;
    }

    /**
     * A request whose response stream stays open (subscriptions/listen): each message as it comes,
     * until `close()` cuts the connection (the client's way to end it over HTTP).
     */
    open(method: string, params: Record<string, unknown>, onMessage: (message: Msg) => void): { close(): void; status: Promise<number> } {
        const body = this.bodyFor(method, params);
        const headers = Object.fromEntries(Object.entries(this.headersFor(method, params)).filter(([, v]) => v !== undefined)) as Record<string, string>;
        let settle!: (status: number) => void;
        const status = new Promise<number>(resolve => (settle = resolve));
        const req = request(this.url, { method: 'POST', headers, agent: false }, res => {
            settle(res.statusCode ?? 0);
            const splitter = new SseSplitter<Msg>(onMessage);
            res.on('data', (chunk: Buffer) => splitter.push(chunk));
            res.on('error', () => undefined);
        });
        req.on('error', () => settle(0));
        const timer = setTimeout(() => req.destroy(), HUNG_MS);
        req.end(body);
        return {
            status,
            close: () => {
                clearTimeout(timer);
                req.destroy();
            },
        };
    }
}
