import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
            const { port } = server.address() as { port: number };
            server.close(() => resolve(port));
        });
    });
}

export interface RedisServer {
    url: string;
    port: number;
    dir: string;
    /** Runs one command through redis-cli and returns its output. */
    cli(...args: string[]): Promise<string>;
    /** Kills the server (SIGKILL by default: an outage, not a shutdown). */
    kill(signal?: NodeJS.Signals): Promise<void>;
    /** Starts it again on the same port and directory (it loads dump.rdb if a SAVE wrote one). */
    restart(): Promise<void>;
    stop(): Promise<void>;
}

/** A throw-away `redis-server` on a free loopback port, no persistence unless a test SAVEs. */
export async function startRedis(): Promise<RedisServer> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-redis-'));
    let proc: ChildProcess;

    const launch = async () => {
        proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
        const lines = createInterface({ input: proc.stdout! });
        const output: string[] = [];
        await Promise.race([
            new Promise<void>(resolve =>
                lines.on('line', line => {
                    output.push(line);
                    if (/Ready to accept connections/.test(line)) {
                        resolve();
                    }
                }),
            ),
            once(proc, 'exit').then(([code]) => {
                throw new Error(`redis-server exited with ${code}:\n${output.join('\n')}`);
            }),
            new Promise((_, reject) => setTimeout(() => reject(new Error(`redis-server not ready in 10 s:\n${output.join('\n')}`)), 10_000).unref()),
        ]);
    };

    const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
        if (proc.exitCode === null && proc.signalCode === null) {
            const exited = once(proc, 'exit');
            proc.kill(signal);
            await exited;
        }
    };

    await launch();
    return {
        url: `redis://127.0.0.1:${port}`,
        port,
        dir,
        cli: (...args) => redisCli(['-p', String(port)], args),
        kill,
        restart: launch,
        stop: async () => {
            await kill('SIGTERM');
            rmSync(dir, { recursive: true, force: true });
        },
    };
}

/** Runs one command through redis-cli against the server `target` names (`-p PORT`, `-u URL`) and returns its output. */
export function redisCli(target: string[], args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
        const child = spawn('redis-cli', [...target, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
        child.once('error', reject);
        child.once('close', code => (code === 0 ? resolve(out.trim()) : reject(new Error(`redis-cli ${args.join(' ')} exited ${code}`))));
    });
}

/**
 * Whether Debian's redis-server is installed; CI (CI=true) installs it on Linux and macOS, so there
 * the tests never skip. Redis publishes no Windows build, so the hosted Windows runner has none.
 */
export function redisSkipReason(): string | false {
    if (process.platform === 'win32') {
        return 'not run on win32: Redis has no Windows build (the shared-store tests run on Linux and macOS)';
    }
    if (process.env.CI) {
        return false;
    }
    const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
    return probe.status === 0 ? false : 'redis-server is not installed (apt-get install redis-server)';
}
