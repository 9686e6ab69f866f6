import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { Feed, type Changes } from './wait.js';
import { inMemory } from './serverState.js';

/**
 * The server the suites start: this checkout's build, or (MCP_TASKS_SERVER_JS) another build's
 * `dist/server.js`, to show what a suite finds on an older main (the host matrix's before, TESTING.md).
 */
export const SERVER_JS = process.env.MCP_TASKS_SERVER_JS ? resolve(process.env.MCP_TASKS_SERVER_JS) : resolve(__dirname, '../../dist/server.js');
export const TRANSPORTS = ['stdio', 'http'] as const;
export type TransportKind = (typeof TRANSPORTS)[number];

/**
 * A shared store for every server the suites start (`npm run test:server:redis` sets a redis:// URL).
 * Each server gets its own key prefix, so concurrent suites never see each other's tasks; servers
 * started without --token keep the session binding (--bind session), as the memory store does.
 */
export const TEST_STORE = process.env.MCP_TASKS_TEST_STORE || undefined;

export function storeArgs(args: string[]): string[] {
    const own = inMemory(args);
    if (!TEST_STORE || own.length === 0) {
        return own;
    }
    const extra = ['--store', TEST_STORE, '--store-prefix', `test-${randomUUID()}:`];
    return args.includes('--token') || args.includes('--bind') ? extra : [...extra, '--bind', 'session'];
}

/** Collects a child's stderr lines so tests can wait for and assert on the server's log. */
export class LogTail {
    private readonly feed = new Feed<string>();

    get lines(): string[] {
        return this.feed.items;
    }

    /** Fires on each new line: `waitUntil(check, what, { on: log.changes })`. */
    get changes(): Changes {
        return this.feed.changes;
    }

    attach(stream: NodeJS.ReadableStream): void {
        createInterface({ input: stream }).on('line', line => {
            if (process.env.MCP_TASKS_TEST_LOGS) {
                process.stderr.write(`[server] ${line}\n`);
            }
            this.feed.push(line);
        });
    }

    /** Resolves with the first line (already seen or future) matching `pattern`. */
    waitFor(pattern: RegExp): Promise<string> {
        return this.feed.waitFor(line => pattern.test(line), `a log line matching ${pattern}; the log so far:\n${this.lines.slice(-40).join('\n')}`);
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

/**
 * One real HTTP server for the enclosing describe: started before its tests, stopped after them.
 * Read its fields inside a test or hook, not while the describe is being declared.
 */
export function httpServerPerSuite(args: string[] = [], env?: NodeJS.ProcessEnv): HttpServer {
    let started: HttpServer | undefined;
    before(async () => {
        started = await startHttpServer(args, env);
    });
    after(async () => {
        await started?.stop();
    });
    const server = (): HttpServer => {
        if (!started) {
            throw new Error('the suite server is read before its describe started it');
        }
        return started;
    };
    return {
        get url() {
            return server().url;
        },
        get port() {
            return server().port;
        },
        get proc() {
            return server().proc;
        },
        get log() {
            return server().log;
        },
        stop: signal => server().stop(signal),
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

/** A fresh token. Hex, so it never starts with "-", which the CLI parser would take for a flag. */
export const secret = () => randomBytes(24).toString('hex');

export function textOf(result: unknown): string {
    const content = ((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[];
    return content.map(part => part.text ?? '').join('');
}
