// The gateway against the proxies people put in front of a stdio server today (issue 42):
// server-everything's echo through ours over Streamable HTTP (`--http --wrap -- …`), through
// mcp-proxy and through supergateway, each a fresh process wrapping its own server-everything,
// driven by the same raw HTTP client and taken in turns so the shared machine's load falls on all
// alike. The two proxies are installed on demand at pinned versions into a cache folder (never
// project dependencies), as test/hosts/hostInstall.ts installs the host CLIs.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ensurePinnedPackage, type PinnedPackage } from '../../test/hosts/hostInstall.js';
import type { Context, Metrics } from './experiments.js';
import { ECHO, EVERYTHING_JS, childPids, waitForEcho, WRAP_ARGS } from './gatewayExperiment.js';
import { HttpMcpSession, NodeHttpPoster } from './httpClient.js';
import { delay, interleavedLoops } from './load.js';
import { CHILD_ENV, cpuMs, startHttp, stopProcess, track, type Kind } from './targets.js';

export type ProxyKind = 'mcp-proxy' | 'supergateway';

/** The versions the comparisons on record in docs/BENCHMARKS.md were taken with. */
export const PROXIES: Record<ProxyKind, PinnedPackage> = {
    'mcp-proxy': { folder: 'mcp-proxy-6.7.19', spec: 'mcp-proxy@6.7.19', entry: 'node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs' },
    supergateway: { folder: 'supergateway-4.0.0', spec: 'supergateway@4.0.0', entry: 'node_modules/supergateway/dist/index.js' },
};

/** `${XDG_CACHE_HOME:-~/.cache}/mcp-tasks-proxies`, or `$MCP_TASKS_PROXIES_CACHE`. */
export function proxiesCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
    return env.MCP_TASKS_PROXIES_CACHE || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mcp-tasks-proxies');
}

/**
 * The command line that puts `kind` in front of `node <server-everything> stdio` on `port`,
 * serving Streamable HTTP on /mcp with one session per client. supergateway needs `--stateful`:
 * without it every request starts a new server-everything.
 */
export function proxyArgs(kind: ProxyKind, entry: string, port: number): string[] {
    const server = [process.execPath, EVERYTHING_JS, 'stdio'];
    return kind === 'mcp-proxy'
        ? [entry, '--host', '127.0.0.1', '--port', String(port), '--server', 'stream', '--streamEndpoint', '/mcp', '--', ...server]
        : [entry, '--stdio', server.map(arg => JSON.stringify(arg)).join(' '), '--outputTransport', 'streamableHttp', '--stateful', '--port', String(port), '--streamableHttpPath', '/mcp', '--logLevel', 'none'];
}

function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
            const { port } = server.address() as { port: number };
            server.close(() => resolve(port));
        });
    });
}

/** Every process under `pid` (supergateway starts its server through a shell). */
function descendants(pid: number): number[] {
    return childPids(pid).flatMap(child => [child, ...descendants(child)]);
}

interface ProxySide {
    call: (method: string, params: string) => Promise<Record<string, unknown>>;
    /** CPU ms of every process serving the side: the proxy (or gateway) and its server-everything. */
    cpu: () => number;
    close: () => Promise<void>;
}

/** Opens one session on `url`, retrying while the proxy is still starting to listen. */
async function openSession(url: string, poster: NodeHttpPoster, kind: Kind): Promise<HttpMcpSession> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 100; attempt++) {
        try {
            return await HttpMcpSession.open(url, poster);
        } catch (error) {
            lastError = error;
            await delay(100);
        }
    }
    throw new Error(`${kind} never answered initialize: ${(lastError as Error).message}`);
}

async function openSide(ctx: Context, kind: Kind, entries: Map<ProxyKind, string>): Promise<ProxySide> {
    let pid: number;
    let url: string;
    let stop: () => Promise<void>;
    if (kind === 'gateway') {
        const server = await startHttp('ours', ctx.programs, { args: WRAP_ARGS });
        ({ pid, url } = server);
        stop = () => server.stop();
    } else {
        const port = await freePort();
        const proc = track(spawn(process.execPath, proxyArgs(kind as ProxyKind, entries.get(kind as ProxyKind)!, port), { stdio: 'ignore', env: CHILD_ENV }));
        pid = proc.pid!;
        url = `http://127.0.0.1:${port}/mcp`;
        stop = () => stopProcess(proc);
    }
    // One connection pool and one session per side, no per-call AbortSignal: the client stays cheap.
    const poster = new NodeHttpPoster(ctx.settings.concurrency);
    let pids: number[] = [pid];
    const side: ProxySide = {
        call: () => Promise.reject(new Error('not open')),
        cpu: () => pids.reduce((sum, p) => sum + cpuMs(p), 0),
        close: async () => {
            poster.close();
            const below = descendants(pid);
            await stop();
            for (const child of below) {
                try {
                    process.kill(child, 'SIGKILL');
                } catch {
                    // already gone with its parent
                }
            }
        },
    };
    try {
        const session = await openSession(url, poster, kind);
        side.call = (method, params) => session.callRaw(method, params);
        await waitForEcho(side.call);
        // supergateway starts the server for the session: read the tree once the session is up.
        pids = [pid, ...descendants(pid)];
        return side;
    } catch (error) {
        await side.close();
        throw error;
    }
}

/**
 * One round: `echo` with `concurrency` in flight through each side over Streamable HTTP, the sides
 * taken in turns (interleavedLoops) after a warm-up each of gatewayWarmupMs. CPU per call sums
 * every process serving a side (front and server-everything).
 */
export async function gatewayVsProxies(ctx: Context, kinds: Kind[]): Promise<Metrics[]> {
    const entries = new Map<ProxyKind, string>();
    for (const kind of kinds) {
        if (kind === 'mcp-proxy' || kind === 'supergateway') {
            entries.set(kind, (await ensurePinnedPackage(PROXIES[kind], proxiesCacheRoot())).entry);
        }
    }
    const { gatewayWarmupMs, windowMs, concurrency, slices } = ctx.settings;
    const sides: ProxySide[] = [];
    try {
        for (const kind of kinds) {
            sides.push(await openSide(ctx, kind, entries));
        }
        const results = await interleavedLoops(
            sides.length,
            concurrency,
            gatewayWarmupMs,
            windowMs,
            slices,
            t => sides[t]!.call('tools/call', ECHO),
            t => sides[t]!.cpu(),
        );
        return results.map((result, i) => {
            if (result.firstError) {
                throw new Error(`${kinds[i]} echo: ${result.firstError}`);
            }
            return { echoRate: result.rate, echoP50: result.p50, echoP99: result.p99, echoCpuUs: (result.cost * 1000) / Math.max(1, result.total) };
        });
    } finally {
        for (const side of sides) {
            await side.close();
        }
    }
}
