import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { SERVER_JS } from './helpers.js';
import { HUNG_MS } from './wait.js';

export interface Exit {
    code: number | null;
    signal: NodeJS.Signals | null;
}

/** Resolves when `proc` exits; rejects (and kills it) when it hangs past `timeoutMs`. */
export async function exitWithin(proc: ChildProcess, timeoutMs = HUNG_MS): Promise<Exit> {
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
export async function runCli(args: string[], timeoutMs = HUNG_MS, env: NodeJS.ProcessEnv = {}): Promise<Exit & { stdout: string; stderr: string }> {
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
