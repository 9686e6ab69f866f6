import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { parseSse, readSse } from './sse.js';

export const SERVER_JS = resolve(__dirname, '../../dist/server.js');
export const TRANSPORTS = ['stdio', 'http'] as const;
export type TransportKind = (typeof TRANSPORTS)[number];

/**
 * A shared store for every server the suites start (`npm run test:server:redis` sets a redis:// URL).
 * Each server gets its own key prefix, so concurrent suites never see each other's tasks; servers
 * started without --token keep the session binding (--bind session), as the memory store does.
 */
export const TEST_STORE = process.env.MCP_TASKS_TEST_STORE || undefined;

export function storeArgs(args: string[]): string[] {
    if (!TEST_STORE || args.includes('--store')) {
        return [];
    }
    const extra = ['--store', TEST_STORE, '--store-prefix', `test-${randomUUID()}:`];
    return args.includes('--token') || args.includes('--bind') ? extra : [...extra, '--bind', 'session'];
}

/** Collects a child's stderr lines so tests can assert on the server's log. */
export class LogTail {
    readonly lines: string[] = [];
    private waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];

    attach(stream: NodeJS.ReadableStream): void {
        createInterface({ input: stream }).on('line', line => {
            this.lines.push(line);
            if (process.env.MCP_TASKS_TEST_LOGS) {
                process.stderr.write(`[server] ${line}\n`);
            }
            for (const waiter of [...this.waiters]) {
                if (waiter.pattern.test(line)) {
                    this.waiters.splice(this.waiters.indexOf(waiter), 1);
                    waiter.resolve(line);
                }
            }
        });
    }

    /** Resolves with the first line (already seen or future) matching `pattern`. */
    waitFor(pattern: RegExp, timeoutMs = 5000): Promise<string> {
        const seen = this.lines.find(line => pattern.test(line));
        if (seen) {
            return Promise.resolve(seen);
        }
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`No log line matching ${pattern} within ${timeoutMs} ms:\n${this.lines.join('\n')}`)), timeoutMs);
            this.waiters.push({
                pattern,
                resolve: line => {
                    clearTimeout(timer);
                    resolve(line);
                },
            });
        });
    }
}

export interface HttpServer {
    url: string;
    port: number;
    proc: ChildProcess;
    log: LogTail;
    stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `dist/server.js --http --port 0 …` as a real process and reads its URL line. */
export async function startHttpServer(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<HttpServer> {
    const proc = spawn(process.execPath, [SERVER_JS, '--http', '--port', '0', ...args, ...storeArgs(args)], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    const log = new LogTail();
    log.attach(proc.stderr!);
    const lines = createInterface({ input: proc.stdout! });
    const first = await Promise.race([
        once(lines, 'line').then(([line]) => line as string),
        once(proc, 'exit').then(([code]) => {
            throw new Error(`server exited with ${code} before listening:\n${log.lines.join('\n')}`);
        }),
    ]);
    const url = (JSON.parse(first) as { url: string }).url;
    return {
        url,
        port: Number(new URL(url).port),
        proc,
        log,
        stop: async (signal = 'SIGTERM') => {
            if (proc.exitCode !== null || proc.signalCode !== null) {
                return proc.exitCode;
            }
            const exited = once(proc, 'exit');
            proc.kill(signal);
            const [code] = await exited;
            return code as number | null;
        },
    };
}

export interface ClientOptions {
    capabilities?: ClientCapabilities;
    token?: string;
    name?: string;
}

export interface Connected {
    client: Client;
    log: LogTail;
    close(): Promise<void>;
}

/** An SDK client on a fresh stdio server process, or on an already running HTTP server. */
export async function connect(kind: TransportKind, server: HttpServer | undefined, options: ClientOptions = {}): Promise<Connected> {
    const client = new Client({ name: options.name ?? 'test-client', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
    if (kind === 'stdio') {
        const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER_JS, '--stdio', ...storeArgs([])], stderr: 'pipe' });
        const log = new LogTail();
        log.attach(transport.stderr as unknown as NodeJS.ReadableStream);
        await client.connect(transport);
        return { client, log, close: () => client.close() };
    }
    if (!server) {
        throw new Error('http needs a running server');
    }
    const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } });
    await client.connect(transport);
    return {
        client,
        log: server.log,
        close: async () => {
            await transport.terminateSession().catch(() => undefined);
            await client.close();
        },
    };
}

export const sleep = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms));

/** Polls `check` until it returns a truthy value (tests only: the server itself never polls). */
export async function waitUntil<T>(check: () => T | Promise<T>, timeoutMs = 5000, what = 'condition'): Promise<NonNullable<T>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        const value = await check();
        if (value) {
            return value as NonNullable<T>;
        }
        if (Date.now() > deadline) {
            throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
        }
        await new Promise(r => setTimeout(r, 20));
    }
}

/** A fresh token. Hex, so it never starts with "-", which the CLI parser would take for a flag. */
export const secret = () => randomBytes(24).toString('hex');

export function textOf(result: unknown): string {
    const content = ((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[];
    return content.map(part => part.text ?? '').join('');
}

/** A raw HTTP client for the cases where headers and status codes matter. */
export class RawHttp {
    sessionId?: string;

    constructor(
        readonly url: string,
        readonly baseHeaders: Record<string, string> = {},
    ) {}

    async post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
        return fetch(this.url, {
            method: 'POST',
            headers: {
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
                ...this.baseHeaders,
                ...headers,
            },
            body: typeof body === 'string' ? body : JSON.stringify(body),
        });
    }

    async initialize(capabilities: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
        const res = await this.post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw', version: '1' } } });
        if (res.status !== 200) {
            throw new Error(`initialize failed: ${res.status} ${await res.text()}`);
        }
        this.sessionId = res.headers.get('mcp-session-id') ?? undefined;
        const body = (await readMessages(res))[0]!;
        await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
        return body;
    }

    /** Sends a request and returns every message of the response (one for JSON, several for SSE). */
    async rpc(id: number | string, method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>[]> {
        const res = await this.post({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
        return readMessages(res);
    }

    /** The final response of a request. */
    async call(id: number | string, method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
        const messages = await this.rpc(id, method, params);
        const response = messages.find(m => m.id === id && ('result' in m || 'error' in m));
        if (!response) {
            throw new Error(`no response to ${method}: ${JSON.stringify(messages)}`);
        }
        return response;
    }
}

export async function readMessages(res: Response): Promise<Record<string, unknown>[]> {
    const text = await res.text();
    if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
        return parseSse(text);
    }
    return text ? [JSON.parse(text) as Record<string, unknown>] : [];
}

/** Like readMessages, but hands over each SSE message as it arrives (for responses that stay open). */
export async function readResponse(res: Response, onMessage: (message: Record<string, unknown>) => void): Promise<void> {
    if ((res.headers.get('content-type') ?? '').includes('text/event-stream') && res.body) {
        return readSse(res.body as unknown as AsyncIterable<Uint8Array>, onMessage);
    }
    (await readMessages(res)).forEach(onMessage);
}

/** Opens the GET stream of a session and hands each message to `onMessage`; returns a closer. */
export async function openGetStream(raw: RawHttp, onMessage: (message: Record<string, unknown>) => void): Promise<{ close(): void; response: Response }> {
    const controller = new AbortController();
    const response = await fetch(raw.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': raw.sessionId!, ...raw.baseHeaders }, signal: controller.signal });
    if (response.status === 200 && response.body) {
        // close() aborts the read; that rejection is the normal end.
        void readSse(response.body as unknown as AsyncIterable<Uint8Array>, onMessage).catch(() => undefined);
    }
    return { close: () => controller.abort(), response };
}
