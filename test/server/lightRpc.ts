/**
 * Light clients for the reliability suites (fuzz, load, faults, idle, auth): raw JSON-RPC over
 * node:http with a keep-alive agent, and over a spawned stdio server, plus a /proc RSS reader.
 * They check nothing themselves; they report what came back, malformed or not.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { createInterface } from 'node:readline';
import { LogTail, SERVER_JS } from './helpers.js';
import { parseSse, SseSplitter } from './sse.js';

export type Msg = Record<string, unknown> & { id?: unknown; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { code: number; message: string } };

/** Resident set size of a process, in bytes (Linux /proc). */
export function rssOf(pid: number): number {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (!match) {
        throw new Error(`no VmRSS for ${pid}`);
    }
    return Number(match[1]) * 1024;
}

/** CPU time (user + system) a process has used so far, in seconds (Linux /proc). */
export function cpuSecondsOf(pid: number): number {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
}

export const MiB = 1024 * 1024;
export const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

/** Samples a process's RSS at an interval and remembers the peak. */
export class RssSampler {
    peak = 0;
    private readonly timer: NodeJS.Timeout;

    constructor(
        private readonly pid: number,
        intervalMs = 200,
    ) {
        this.sample();
        this.timer = setInterval(() => this.sample(), intervalMs);
        this.timer.unref();
    }

    sample(): number {
        try {
            const rss = rssOf(this.pid);
            this.peak = Math.max(this.peak, rss);
            return rss;
        } catch {
            return 0;
        }
    }

    stop(): number {
        clearInterval(this.timer);
        return this.sample();
    }
}

export interface HttpReply {
    status: number;
    headers: IncomingHttpHeaders;
    body: string;
    /** The JSON-RPC messages of the body (one for JSON, each `data:` of an SSE body). */
    messages: Msg[];
    /** Set when the body claimed JSON or SSE but did not parse. */
    malformed?: string;
}

export interface SendOptions {
    method?: string;
    headers?: Record<string, string | undefined>;
    timeoutMs?: number;
    /** On a 200, resolve as soon as headers arrive, then drop the connection (for GET streams). */
    headersOnly?: boolean;
    /** Another path than the URL's (and its query). */
    path?: string;
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
 * One JSON-RPC client over Streamable HTTP. Each instance has its own keep-alive agent unless
 * one is shared; `destroy()` cuts every connection at once (a client that vanishes).
 */
export class LightHttp {
    sessionId?: string;
    /** When set, the round-trip time (ms) of each call() but tasks/result is appended. */
    latencies?: number[];
    private nextId = 1;

    constructor(
        readonly url: string,
        readonly baseHeaders: Record<string, string> = {},
        readonly agent = new Agent({ keepAlive: true, maxSockets: 16 }),
    ) {}

    /** One exchange; never rejects for an HTTP status, only for a transport failure or timeout. */
    send(body: string | object | undefined, options: SendOptions = {}): Promise<HttpReply> {
        const method = options.method ?? 'POST';
        const headers: Record<string, string> = {
            ...(method === 'POST' ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } : {}),
            ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
            ...this.baseHeaders,
        };
        for (const [name, value] of Object.entries(options.headers ?? {})) {
            if (value === undefined) {
                delete headers[name];
            } else {
                headers[name] = value;
            }
        }
        const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
        return new Promise((resolve, reject) => {
            const req = request(this.url, { method, headers, agent: this.agent, ...(options.path ? { path: options.path } : {}) }, res => {
                const contentType = String(res.headers['content-type'] ?? '');
                if (options.headersOnly && res.statusCode === 200) {
                    clearTimeout(timer);
                    resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '', messages: [] });
                    res.destroy();
                    return;
                }
                const chunks: Buffer[] = [];
                res.on('data', (chunk: Buffer) => chunks.push(chunk));
                res.on('end', () => {
                    clearTimeout(timer);
                    const text = Buffer.concat(chunks).toString('utf8');
                    resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, ...parseBody(contentType, text) });
                });
                res.on('error', err => {
                    clearTimeout(timer);
                    reject(err);
                });
            });
            const timer = setTimeout(() => req.destroy(new Error(`no complete answer to ${method} within ${options.timeoutMs} ms`)), options.timeoutMs ?? 30_000);
            req.on('error', err => {
                clearTimeout(timer);
                reject(err);
            });
            req.end(payload);
        });
    }

    async initialize(options: { capabilities?: Record<string, unknown>; name?: string } = {}): Promise<Msg> {
        const reply = await this.send({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: options.capabilities ?? {}, clientInfo: { name: options.name ?? 'light', version: '1' } },
        });
        const sessionId = reply.headers['mcp-session-id'];
        if (reply.status !== 200 || typeof sessionId !== 'string') {
            throw new Error(`initialize failed: ${reply.status} ${reply.body}`);
        }
        this.sessionId = sessionId;
        await this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        return reply.messages[0]!;
    }

    /** Sends a request and returns its final response (result or error); throws on a transport error. */
    async call(method: string, params?: Record<string, unknown>, timeoutMs = 30_000): Promise<Msg> {
        const id = this.nextId++;
        const started = performance.now();
        const reply = await this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }, { timeoutMs });
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
    async result(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<Record<string, unknown>> {
        const response = await this.call(method, params, timeoutMs);
        if (response.error) {
            throw Object.assign(new Error(`${method}: ${response.error.message}`), { code: response.error.code });
        }
        return response.result!;
    }

    /** tools/call with `task: {}`: the created task (the CreateTaskResult's `task`). */
    async createTask(args: Record<string, unknown>, name = 'slow_compute'): Promise<{ taskId: string } & Record<string, unknown>> {
        return (await this.result('tools/call', { name, arguments: args, task: {} })).task as { taskId: string } & Record<string, unknown>;
    }

    /** Opens the session's GET stream; every message goes to `onMessage`. */
    openStream(onMessage: (message: Msg) => void): Promise<SseHandle> {
        return new Promise((resolve, reject) => {
            const req = request(
                this.url,
                { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': this.sessionId ?? '', ...this.baseHeaders }, agent: false },
                res => {
                    // once() rejects when 'error' comes first (a reset): either way the stream is closed.
                    const closed = once(res, 'close').then(
                        () => undefined,
                        () => undefined,
                    );
                    const handle: SseHandle = { status: res.statusCode ?? 0, closed, close: () => req.destroy() };
                    resolve(handle);
                    if (res.statusCode !== 200) {
                        res.resume();
                        return;
                    }
                    const events = new SseSplitter<Msg>(onMessage);
                    res.setEncoding('utf8');
                    res.on('data', (chunk: string) => events.push(chunk));
                    res.on('error', () => undefined);
                },
            );
            req.on('error', err => reject(err));
            req.end();
        });
    }

    /** DELETEs the session (best effort) and closes this client's idle connections. */
    async close(): Promise<void> {
        if (this.sessionId) {
            await this.send(undefined, { method: 'DELETE', timeoutMs: 5000 }).catch(() => undefined);
        }
        this.agent.destroy();
    }

    /** Drops every connection without a word, as a crashed client would. */
    destroy(): void {
        this.agent.destroy();
    }
}

export interface SseHandle {
    status: number;
    closed: Promise<void>;
    close(): void;
}

/**
 * `dist/server.js --stdio` driven line by line. Responses are matched by order of arrival: a
 * caller sends one input and reads what came back. Requests from the server (elicitation,
 * sampling) go to `onServerRequest`, or are refused with -32601.
 */
export class StdioLines {
    readonly log = new LogTail();
    private readonly queue: Msg[] = [];
    private readonly rawLines: string[] = [];
    private wake?: () => void;
    exited = false;
    onServerRequest?: (request: Msg) => void;
    onNotification?: (notification: Msg) => void;
    /** Lines of stdout that were not JSON-RPC (there must be none). */
    readonly garbage: string[] = [];

    private constructor(readonly proc: ChildProcessWithoutNullStreams) {
        this.log.attach(proc.stderr);
        proc.once('exit', () => {
            this.exited = true;
            this.wake?.();
        });
        createInterface({ input: proc.stdout, crlfDelay: Infinity }).on('line', line => {
            let message: Msg;
            try {
                message = JSON.parse(line) as Msg;
            } catch {
                this.garbage.push(line);
                return;
            }
            if (typeof message.method === 'string') {
                if ('id' in message) {
                    if (this.onServerRequest) {
                        this.onServerRequest(message);
                    } else {
                        this.write({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'This client answers no requests' } });
                    }
                } else {
                    this.onNotification?.(message);
                }
                return;
            }
            this.rawLines.push(line);
            this.queue.push(message);
            this.wake?.();
        });
    }

    static start(args: string[] = [], env: NodeJS.ProcessEnv = {}): StdioLines {
        return new StdioLines(spawn(process.execPath, [SERVER_JS, '--stdio', ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } }));
    }

    get pid(): number {
        return this.proc.pid!;
    }

    /** Writes one line (a newline is added). */
    write(message: string | object): void {
        this.proc.stdin.write((typeof message === 'string' ? message : JSON.stringify(message)) + '\n');
    }

    /** The next response the server writes (not a notification or request), or a timeout error. */
    async next(timeoutMs: number): Promise<Msg> {
        const deadline = Date.now() + timeoutMs;
        while (this.queue.length === 0) {
            if (this.exited) {
                throw new Error(`the server exited (code ${this.proc.exitCode}, signal ${this.proc.signalCode}); stderr:\n${this.log.lines.slice(-20).join('\n')}`);
            }
            const left = deadline - Date.now();
            if (left <= 0) {
                throw new Error(`no response within ${timeoutMs} ms`);
            }
            await new Promise<void>(resolve => {
                const timer = setTimeout(resolve, left);
                this.wake = () => {
                    clearTimeout(timer);
                    resolve();
                };
            });
            this.wake = undefined;
        }
        return this.queue.shift()!;
    }

    /** How many responses are waiting unread. */
    get pending(): number {
        return this.queue.length;
    }

    async call(id: number | string, method: string, params?: Record<string, unknown>, timeoutMs = 30_000): Promise<Msg> {
        this.write({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
        const response = await this.next(timeoutMs);
        if (response.id !== id) {
            throw new Error(`expected the response to ${String(id)}, got ${JSON.stringify(response).slice(0, 300)}`);
        }
        return response;
    }

    async initialize(capabilities: Record<string, unknown> = {}): Promise<void> {
        const response = await this.call('init', 'initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'stdio-light', version: '1' } });
        if (!response.result) {
            throw new Error(`initialize failed: ${JSON.stringify(response)}`);
        }
        this.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    }

    kill(): void {
        if (!this.exited) {
            this.proc.kill('SIGKILL');
        }
    }
}

/** A small deterministic PRNG (mulberry32), so load plans repeat from a seed. */
export function prng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}
