import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request, type IncomingHttpHeaders } from 'node:http';
import { SERVER_JS } from './helpers.js';

export interface NodeResponse {
    status: number;
    headers: IncomingHttpHeaders;
    body: string;
}

/**
 * One HTTP exchange through node:http, for what fetch will not send as given (a forged Host,
 * an Origin). No connection pooling, so nothing outlives the exchange.
 */
export function nodeRequest(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<NodeResponse> {
    return new Promise((resolve, reject) => {
        const req = request(url, { method: options.method ?? 'POST', headers: options.headers, agent: false }, res => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
            res.on('error', reject);
        });
        req.on('error', reject);
        req.end(options.body);
    });
}

export const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

export interface JsonRpcError {
    jsonrpc: string;
    id: unknown;
    error: { code: number; message: string };
}

export interface Exit {
    code: number | null;
    signal: NodeJS.Signals | null;
}

/** Resolves when `proc` exits; rejects (and kills it) when that takes longer than `timeoutMs`. */
export async function exitWithin(proc: ChildProcess, timeoutMs: number): Promise<Exit> {
    if (proc.exitCode !== null || proc.signalCode !== null) {
        return { code: proc.exitCode, signal: proc.signalCode };
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
            proc.kill('SIGKILL');
            reject(new Error(`process ${proc.pid} still running after ${timeoutMs} ms`));
        }, timeoutMs);
    });
    try {
        const [code, signal] = (await Promise.race([once(proc, 'exit'), timeout])) as [number | null, NodeJS.Signals | null];
        return { code, signal };
    } finally {
        clearTimeout(timer);
    }
}

/** Runs `node dist/server.js …args` to completion and returns what it printed. */
export async function runCli(args: string[], timeoutMs = 10_000, env: NodeJS.ProcessEnv = {}): Promise<Exit & { stdout: string; stderr: string }> {
    const proc = spawn(process.execPath, [SERVER_JS, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MCP_TASKS_TOKEN: '', MCP_TASKS_OWNER_TOKEN: '', ...env } });
    let stdout = '';
    let stderr = '';
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // 'exit' can precede the last 'data' of the pipes; 'close' comes after both.
    const closed = once(proc, 'close').catch(() => undefined);
    const exit = await exitWithin(proc, timeoutMs);
    await closed;
    return { ...exit, stdout, stderr };
}
