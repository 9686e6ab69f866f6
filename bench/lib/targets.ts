// Starting the programs under test: our dist/server.js, the stock-SDK baseline and the floors
// (the last two bundled by esbuild into a temporary directory, like dist/server.js is).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { redisClientApart } from '../../scripts/redisClientApart.mjs';
import { StdioMcpClient } from './stdioClient.js';

export const ROOT = resolve(__dirname, '../..');
export const OURS_JS = join(ROOT, 'dist/server.js');

/** `redis` is ours with its tasks in a redis-server (`Programs.redis`), for the store comparison. */
/** `sqlite` is ours with `--store sqlite` in a data folder of its own for each start (dataDirFor), for the durable store's cost. */
/** `v2`: ours again, driven by a 2026-07-28 client (the revision experiment). */
/** `gateway` and `direct`: ours wrapping server-everything, and server-everything alone (gatewayExperiment.ts starts both). */
/** `mcp-proxy` and `supergateway`: those proxies in front of server-everything (proxyExperiment.ts). */
export type Kind = 'ours' | 'baseline' | 'floor' | 'redis' | 'sqlite' | 'v2' | 'gateway' | 'direct' | 'mcp-proxy' | 'supergateway';

export interface Programs {
    /** Our server bundle (dist/server.js unless --ours names another build). */
    ours: string;
    baseline: string;
    /** Set when --vs replaces the stock baseline with another build of our server (before/after runs). */
    baselineIsOurs: boolean;
    httpFloor: string;
    stdioEcho: string;
    activate: string;
    heapProbe: string;
    /** The in-process command tools probe (flood, mass cancel). */
    commandProbe: string;
    /** The in-process probe of stopping many command groups at once. */
    stopProbe: string;
    /** The in-process probe of what resumability costs per SSE stream. */
    streamProbe: string;
    /** The server built from server/src as `node esbuild.mjs --production` builds it (minified), for cold start. */
    oursMinified: string;
    /** The redis-server the `redis` kind uses; set only while the Redis experiment runs. */
    redis?: { url: string; pid: number };
    dispose(): void;
}

/** Every child the bench started and has not seen exit, so a run cut short leaves none behind. */
const children = new Set<ChildProcess>();

export function track<T extends ChildProcess>(proc: T): T {
    children.add(proc);
    proc.once('exit', () => children.delete(proc));
    return proc;
}

/** Kills every child still running (after a timed-out experiment, and at the end). */
export function killAll(): void {
    for (const proc of children) {
        proc.kill('SIGKILL');
    }
    children.clear();
}

/** Bundles the bench-side programs once per run. */
export async function buildPrograms(overrides: { ours?: string; vs?: string } = {}): Promise<Programs> {
    const outdir = mkdtempSync(join(tmpdir(), 'mcp-tasks-bench-'));
    await build({
        entryPoints: {
            baseline: join(ROOT, 'bench/programs/baseline.ts'),
            httpFloor: join(ROOT, 'bench/programs/httpFloor.ts'),
            stdioEcho: join(ROOT, 'bench/programs/stdioEcho.ts'),
            activate: join(ROOT, 'bench/programs/activate.ts'),
            heapProbe: join(ROOT, 'bench/programs/heapProbe.ts'),
            commandProbe: join(ROOT, 'bench/programs/commandProbe.ts'),
            stopProbe: join(ROOT, 'bench/programs/stopProbe.ts'),
            streamProbe: join(ROOT, 'bench/programs/streamProbe.ts'),
        },
        outdir,
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'cjs',
        logLevel: 'warning',
        define: { __MCP_TASKS_VERSION__: JSON.stringify('bench') },
    });
    await build({
        entryPoints: { oursMinified: join(ROOT, 'server/src/cli.ts') },
        outdir,
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'cjs',
        minify: true,
        // As dist/server.js is built: the Redis client apart (cold start never loads it).
        plugins: [redisClientApart],
        logLevel: 'warning',
        define: { __MCP_TASKS_VERSION__: JSON.stringify('bench') },
    });
    return {
        ours: overrides.ours ? resolve(overrides.ours) : OURS_JS,
        baseline: overrides.vs ? resolve(overrides.vs) : join(outdir, 'baseline.js'),
        baselineIsOurs: overrides.vs !== undefined,
        httpFloor: join(outdir, 'httpFloor.js'),
        stdioEcho: join(outdir, 'stdioEcho.js'),
        activate: join(outdir, 'activate.js'),
        heapProbe: join(outdir, 'heapProbe.js'),
        commandProbe: join(outdir, 'commandProbe.js'),
        stopProbe: join(outdir, 'stopProbe.js'),
        streamProbe: join(outdir, 'streamProbe.js'),
        oursMinified: join(outdir, 'oursMinified.js'),
        dispose: () => rmSync(outdir, { recursive: true, force: true }),
    };
}

/**
 * No token: the bench talks to an open loopback endpoint, as a local client would. The memory
 * store, whatever the environment says (the server's default is the SQLite file): only the `redis`
 * and `sqlite` kinds name another with --store, so "ours" is always the memory store.
 */
export const CHILD_ENV: NodeJS.ProcessEnv = {
    ...process.env,
    MCP_TASKS_TOKEN: '',
    MCP_TASKS_OWNER_TOKEN: '',
    MCP_TASKS_OWNER_ANNOUNCE: '',
    MCP_TASKS_STORE: 'memory',
    MCP_TASKS_STORE_PREFIX: '',
    MCP_TASKS_DATA_DIR: '',
};

/** The limit flags a build of ours understands, read once from its --help (older builds lack the retention budget). */
const flagsByProgram = new Map<string, string[]>();

/** Ours may hold any number of live and finished tasks per client in the bench. */
function oursFlags(program: string): string[] {
    let flags = flagsByProgram.get(program);
    if (!flags) {
        const help = spawnSync(process.execPath, [program, '--help'], { encoding: 'utf8' }).stdout ?? '';
        flags = ['--max-tasks-per-client', '1000000'];
        if (help.includes('--max-retained-tasks-per-client')) {
            flags.push('--max-retained-tasks-per-client', '100000000', '--max-retained-bytes-per-client', String(2 ** 40));
        }
        flagsByProgram.set(program, flags);
    }
    return flags;
}

/** The store flags of the `redis` kind; session binding unless `args` choose, as the memory store binds. */
function redisFlags(programs: Programs, args: string[]): string[] {
    if (!programs.redis) {
        throw new Error('the redis kind needs a running redis-server (Programs.redis)');
    }
    return ['--store', programs.redis.url, ...(args.includes('--bind') ? [] : ['--bind', 'session'])];
}

/**
 * A fresh data folder for one start of the `sqlite` kind (undefined for the other kinds): each run
 * begins on an empty file and never takes over the tasks of the run before. removeWhenGone deletes it.
 */
function dataDirFor(kind: Kind): string | undefined {
    return kind === 'sqlite' ? mkdtempSync(join(tmpdir(), 'mcp-tasks-bench-data-')) : undefined;
}

/** Deletes a start's data folder once its process has exited, however it ended (stop, killAll). */
function removeWhenGone(proc: ChildProcess, dataDir: string | undefined): void {
    if (dataDir) {
        proc.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
    }
}

/** The store flags of the `sqlite` kind, in the data folder dataDirFor made for this start. */
function sqliteFlags(dataDir: string | undefined): string[] {
    if (!dataDir) {
        throw new Error('the sqlite kind needs a data folder of its own (dataDirFor)');
    }
    return ['--store', 'sqlite', '--data-dir', dataDir];
}

/** The command line of an HTTP program; `args` are appended (ours, redis and sqlite only). */
export function httpCommand(kind: Kind, programs: Programs, args: string[] = [], dataDir?: string): string[] {
    switch (kind) {
        case 'ours':
        case 'v2':
            return [programs.ours, '--http', '--port', '0', ...oursFlags(programs.ours), ...args];
        case 'redis':
            return [programs.ours, '--http', '--port', '0', ...oursFlags(programs.ours), ...redisFlags(programs, args), ...args];
        case 'sqlite':
            return [programs.ours, '--http', '--port', '0', ...oursFlags(programs.ours), ...sqliteFlags(dataDir), ...args];
        case 'baseline':
            return [programs.baseline, '--http', '--port', '0', ...(programs.baselineIsOurs ? oursFlags(programs.baseline) : [])];
        case 'floor':
            return [programs.httpFloor, '--port', '0'];
        case 'gateway':
        case 'direct':
        case 'mcp-proxy':
        case 'supergateway':
            throw new Error('gatewayExperiment.ts and proxyExperiment.ts start the gateway kinds themselves');
    }
}

export function stdioCommand(kind: Kind, programs: Programs, dataDir?: string): string[] {
    switch (kind) {
        case 'ours':
        case 'v2':
            return [programs.ours, '--stdio', ...oursFlags(programs.ours)];
        case 'sqlite':
            return [programs.ours, '--stdio', ...oursFlags(programs.ours), ...sqliteFlags(dataDir)];
        case 'baseline':
            return [programs.baseline, '--stdio', ...(programs.baselineIsOurs ? oursFlags(programs.baseline) : [])];
        case 'floor':
            return [programs.stdioEcho];
        case 'redis':
            throw new Error('the Redis store is measured over HTTP only');
        case 'gateway':
        case 'direct':
        case 'mcp-proxy':
        case 'supergateway':
            throw new Error('gatewayExperiment.ts and proxyExperiment.ts start the gateway kinds themselves');
    }
}

export interface RunningServer {
    url: string;
    pid: number;
    proc: ChildProcess;
    /** Every stderr line so far, if capture was asked for. */
    lines: string[];
    onLine?: (line: string) => void;
    stop(graceMs?: number): Promise<void>;
}

/** Starts an HTTP program and resolves once it has printed {"url"}. */
export function startHttp(kind: Kind, programs: Programs, options: { capture?: boolean; args?: string[] } = {}): Promise<RunningServer> {
    const dataDir = dataDirFor(kind);
    const proc = track(spawn(process.execPath, httpCommand(kind, programs, options.args, dataDir), { stdio: ['ignore', 'pipe', 'pipe'], env: CHILD_ENV }));
    removeWhenGone(proc, dataDir);
    const lines: string[] = [];
    let partial = '';
    const server: RunningServer = {
        url: '',
        pid: proc.pid!,
        proc,
        lines,
        stop: (graceMs?: number) => stopProcess(proc, graceMs),
    };
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (chunk: string) => {
        if (!options.capture && !server.onLine) {
            return;
        }
        const text = partial + chunk;
        const parts = text.split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) {
            if (options.capture) {
                lines.push(line);
            }
            server.onLine?.(line);
        }
    });
    return new Promise((resolvePromise, reject) => {
        let out = '';
        proc.stdout.setEncoding('utf8');
        proc.stdout.on('data', (chunk: string) => {
            out += chunk;
            const newline = out.indexOf('\n');
            if (newline >= 0 && !server.url) {
                server.url = (JSON.parse(out.slice(0, newline)) as { url: string }).url;
                resolvePromise(server);
            }
        });
        proc.once('exit', code => reject(new Error(`${kind} server exited (${code}) before listening: ${lines.join('\n')}`)));
        proc.once('error', reject);
    });
}

export function startStdio(kind: Kind, programs: Programs, onStderr?: (text: string) => void): StdioMcpClient {
    const dataDir = dataDirFor(kind);
    const client = new StdioMcpClient(process.execPath, stdioCommand(kind, programs, dataDir), CHILD_ENV, onStderr);
    track(client.proc);
    removeWhenGone(client.proc, dataDir);
    return client;
}

export async function stopProcess(proc: ChildProcess, graceMs = 3000): Promise<void> {
    if (proc.exitCode !== null || proc.signalCode !== null) {
        return;
    }
    const exited = new Promise<void>(done => proc.once('exit', () => done()));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
}

/** Resident set size of a process, in bytes. */
export function rssBytes(pid: number): number {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : NaN;
}

/** User + system CPU time of a process, in milliseconds (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the command: state is index 0, utime index 11, stime index 12.
    return (Number(fields[11]) + Number(fields[12])) * 10;
}

export interface Machine {
    cpuModel: string;
    cores: number;
    memoryGiB: number;
    node: string;
    platform: string;
    loadAtStart: number[];
}

export function describeMachine(): Machine {
    const list = cpus();
    return {
        cpuModel: list[0]?.model.trim() ?? 'unknown',
        cores: list.length,
        memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
        loadAtStart: loadavg().map(v => Math.round(v * 100) / 100),
    };
}
