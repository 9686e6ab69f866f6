import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { LogTail, SERVER_JS, type TransportKind } from '../../support/helpers.js';
import { parseSse } from '../../support/sse.js';
import { inMemory } from '../../support/serverState.js';

const ROOT = resolve(__dirname, '../../..');
/** The reference server from npm (a pinned devDependency), run as its own process. */
export const EVERYTHING = resolve(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** The knowledge-graph server from npm (a pinned devDependency). */
export const MEMORY = resolve(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
/** Our own misbehaving MCP server (hangs, crashes, floods, garbage). */
export const MISBEHAVING = resolve(__dirname, '../fixtures/gateway/misbehaving.mjs');

export const wrapEverything = () => ['--wrap', '--', process.execPath, EVERYTHING, 'stdio'];
export const wrapMisbehaving = () => ['--wrap', '--', process.execPath, MISBEHAVING];
/** Our own MCP server whose prompts and resources change when told (the notification tests). */
export const CHANGING = resolve(__dirname, '../fixtures/gateway/changing.mjs');
export const wrapChanging = () => ['--wrap', '--', process.execPath, CHANGING];

export interface Gateway {
    client: Client;
    log: LogTail;
    close(): Promise<void>;
}

/** A gateway on stdio (dist/server.js --stdio … --wrap …) with an SDK (2025-11-25) client on it. */
export async function stdioGateway(args: string[], capabilities: ClientCapabilities = {}, env: Record<string, string> = {}): Promise<Gateway> {
    const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER_JS, '--stdio', '--log-level', 'debug', ...args], stderr: 'pipe', env: { ...process.env, ...env } as Record<string, string> });
    const log = new LogTail();
    log.attach(transport.stderr as unknown as NodeJS.ReadableStream);
    const client = new Client({ name: 'gateway-test', version: '1.0.0' }, { capabilities });
    await client.connect(transport);
    return { client, log, close: () => client.close() };
}

export interface HttpGateway {
    url: string;
    log: LogTail;
    connect(capabilities?: ClientCapabilities): Promise<Client>;
    stop(): Promise<void>;
}

/** A gateway on HTTP (dist/server.js --http --port 0 … --wrap …) as a real process. */
export async function httpGateway(args: string[]): Promise<HttpGateway> {
    const proc = spawn(process.execPath, [SERVER_JS, '--http', '--port', '0', '--log-level', 'debug', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const log = new LogTail();
    log.attach(proc.stderr!);
    const [line] = (await Promise.race([
        once(createInterface({ input: proc.stdout! }), 'line'),
        once(proc, 'exit').then(([code]) => {
            throw new Error(`gateway exited with ${code}:\n${log.lines.join('\n')}`);
        }),
    ])) as [string];
    const url = (JSON.parse(line) as { url: string }).url;
    const clients: Client[] = [];
    return {
        url,
        log,
        connect: async (capabilities = {}) => {
            const client = new Client({ name: 'gateway-http-test', version: '1.0.0' }, { capabilities });
            await client.connect(new StreamableHTTPClientTransport(new URL(url)));
            clients.push(client);
            return client;
        },
        stop: async () => {
            await Promise.all(clients.map(client => client.close().catch(() => undefined)));
            if (proc.exitCode === null && proc.signalCode === null) {
                const exited = once(proc, 'exit');
                proc.kill('SIGTERM');
                await exited;
            }
        },
    };
}

/** A port nobody listens on right now (for a downstream that must be told its port). */
export async function freePort(): Promise<number> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    server.close();
    await once(server, 'close');
    return port;
}

/** server-everything serving Streamable HTTP on a free port, as a real process. */
export async function everythingOverHttp(): Promise<{ url: string; log: LogTail; stop(): Promise<void> }> {
    const port = await freePort();
    const proc = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, PORT: String(port) } });
    const log = new LogTail();
    log.attach(proc.stderr!);
    await log.waitFor(/listening on port/);
    return {
        url: `http://127.0.0.1:${port}/mcp`,
        log,
        stop: async () => {
            if (proc.exitCode === null && proc.signalCode === null) {
                const exited = once(proc, 'exit');
                proc.kill('SIGTERM');
                await exited;
            }
        },
    };
}

type ClientModule = typeof import('@modelcontextprotocol/client');
/** The official 2.x client (ESM only: the suites import it dynamically). */
export type V2Client = InstanceType<ClientModule['Client']>;

/**
 * A gateway process on `kind` with the official client (@modelcontextprotocol/client 2.x) pinned
 * to 2026-07-28 on it, declaring `capabilities` (no tasks extension unless given).
 */
export async function v2Gateway(kind: TransportKind, args: string[], capabilities: Record<string, unknown> = {}): Promise<{ client: V2Client; log: LogTail; close(): Promise<void> }> {
    const sdk: ClientModule = await import('@modelcontextprotocol/client');
    const client = new sdk.Client({ name: 'gateway-v2', version: '1' }, { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    if (kind === 'http') {
        const gateway = await httpGateway(args);
        await client.connect(new sdk.StreamableHTTPClientTransport(new URL(gateway.url)));
        return { client, log: gateway.log, close: async () => (await client.close(), await gateway.stop()) };
    }
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER_JS, '--stdio', '--log-level', 'debug', ...inMemory(args), ...args], stderr: 'pipe' });
    const log = new LogTail();
    log.attach(transport.stderr as unknown as NodeJS.ReadableStream);
    await client.connect(transport);
    return { client, log, close: () => client.close() };
}

/** ext-tasks sends the 2026-07-28 task wire shapes itself: one POST each, with the revision's headers. */
export function v2Dispatch(url: string) {
    let ids = 0;
    return async (request: unknown) => {
        const { method, params } = request as { method: string; params?: Record<string, unknown> };
        const name = method === 'tools/call' ? params?.name : params?.taskId;
        const response = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(typeof name === 'string' ? { 'mcp-name': name } : {}) },
            body: JSON.stringify({ jsonrpc: '2.0', id: `raw-${++ids}`, ...(request as Record<string, unknown>) }),
        });
        const text = await response.text();
        const messages = response.headers.get('content-type')?.includes('text/event-stream') ? parseSse<Record<string, unknown>>(text) : [JSON.parse(text) as Record<string, unknown>];
        const last = messages.at(-1)!;
        return (last.error ? { kind: 'error', error: last.error } : { kind: 'result', result: last.result }) as never;
    };
}

/**
 * The official 2026-07-28 Tasks client (@modelcontextprotocol/ext-tasks on @modelcontextprotocol/client
 * 2.x) on a gateway's HTTP endpoint, declaring elicitation and the tasks extension; `onInputRequest`
 * answers a task's questions. `close` ends the session, then the client.
 */
export async function v2TaskSession(url: string, onInputRequest: (request: unknown) => unknown) {
    const sdk = await import('@modelcontextprotocol/client');
    const ext = await import('@modelcontextprotocol/ext-tasks/client');
    const capabilities = { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const client = new sdk.Client({ name: 'gateway-v2', version: '1' }, { capabilities: capabilities as never, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new sdk.StreamableHTTPClientTransport(new URL(url)));
    const session = ext.createTaskSessionFromClient(client, {
        endpointId: 'gateway-v2',
        onInputRequest: async (request: unknown) => onInputRequest(request) as never,
        rawDispatch: v2Dispatch(url),
        v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo: { name: 'gateway-v2', version: '1' }, clientCapabilities: capabilities },
    } as never);
    return {
        client,
        session,
        /** The task outcome's result, as a tool result. */
        resultOf: ext.resultFromTaskOutcome,
        close: async () => {
            await session.close().catch(() => undefined);
            await client.close();
        },
    };
}
