// The gateway experiments (issue 29): `echo` of @modelcontextprotocol/server-everything called
// through ours (`--wrap -- node <server-everything> stdio`) against the same server called
// directly over the same transport, side by side and in turns so both see the same minutes of the
// shared machine; and the gateway's memory per wrapped running task.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Context, Metrics } from './experiments.js';
import { HttpMcpSession, NodeHttpPoster } from './httpClient.js';
import { delay, interleavedLoops, pool } from './load.js';
import { slope } from './stats.js';
import { StdioMcpClient } from './stdioClient.js';
import { CHILD_ENV, cpuMs, ROOT, rssBytes, startHttp, stdioCommand, track, type Kind } from './targets.js';

/** The wrapped server, pinned in package.json's devDependencies (the gateway tests start it too). */
export const EVERYTHING_JS = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** Why the gateway experiments cannot run here, if they cannot. */
export function gatewaySkipReason(): string | false {
    return existsSync(EVERYTHING_JS) ? false : `${EVERYTHING_JS} is missing (npm ci installs it)`;
}

/** The arguments that make ours a gateway in front of server-everything over stdio. */
export const WRAP_ARGS = ['--wrap', '--', process.execPath, EVERYTHING_JS, 'stdio'];

export const ECHO = JSON.stringify({ name: 'echo', arguments: { message: 'hello' } });

/** The pids a side's CPU is charged with: the gateway's own, and the downstream it started. */
export function childPids(pid: number): number[] {
    try {
        return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
        return [];
    }
}

/** Waits until the gateway lists the downstream's echo (its downstream is up). */
export async function waitForEcho(call: (method: string, params: string) => Promise<Record<string, unknown>>): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt++) {
        const listed = await call('tools/list', '{}');
        if ((listed.tools as { name: string }[] | undefined)?.some(tool => tool.name === 'echo')) {
            return;
        }
        await delay(100);
    }
    throw new Error('the gateway never listed echo from server-everything');
}

interface GatewaySide {
    call: (method: string, params: string) => Promise<Record<string, unknown>>;
    /** CPU ms of the gateway process alone (0 for the direct side). */
    frontCpu: () => number;
    /** CPU ms of every process serving the side (gateway and downstream, or the server alone). */
    cpu: () => number;
    close: () => Promise<void>;
}

/** `gateway`: ours wrapping server-everything; `direct`: server-everything alone; both over stdio. */
async function openStdio(ctx: Context, kind: Kind): Promise<GatewaySide> {
    const args = kind === 'gateway' ? [...stdioCommand('ours', ctx.programs), ...WRAP_ARGS] : [EVERYTHING_JS, 'stdio'];
    const client = new StdioMcpClient(process.execPath, args, CHILD_ENV);
    track(client.proc);
    await client.initialize();
    const call = (method: string, params: string) => client.callRaw(method, params);
    if (kind === 'gateway') {
        await waitForEcho(call);
    }
    const pids = [client.pid, ...childPids(client.pid)];
    return {
        call,
        frontCpu: () => (kind === 'gateway' ? cpuMs(client.pid) : 0),
        cpu: () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0),
        close: () => client.close(),
    };
}

/**
 * One round: `echo` with `concurrency` in flight through the gateway and directly, over stdio,
 * the two taken in turns (interleavedLoops) after a warm-up each of gatewayWarmupMs (see
 * Settings: both sides' processes are still warming at the other experiments' warm-up). CPU per
 * call sums every process that serves a side.
 */
export async function gatewayVsDirect(ctx: Context, kinds: Kind[]): Promise<Metrics[]> {
    const { gatewayWarmupMs, windowMs, concurrency, slices } = ctx.settings;
    const sides: GatewaySide[] = [];
    try {
        for (const kind of kinds) {
            sides.push(await openStdio(ctx, kind));
        }
        // Each loop reads its cost once at its start and once at its end; the gateway process's own
        // CPU is read at the same moments, so its share can be told apart (the first pair is the warm-up).
        const frontReads: number[][] = sides.map(() => []);
        const results = await interleavedLoops(
            sides.length,
            concurrency,
            gatewayWarmupMs,
            windowMs,
            slices,
            t => sides[t]!.call('tools/call', ECHO),
            t => {
                frontReads[t]!.push(sides[t]!.frontCpu());
                return sides[t]!.cpu();
            },
        );
        return results.map((result, i) => {
            if (result.firstError) {
                throw new Error(`${kinds[i]} echo: ${result.firstError}`);
            }
            const reads = frontReads[i]!;
            let front = 0;
            for (let r = 2; r + 1 < reads.length; r += 2) {
                front += reads[r + 1]! - reads[r]!;
            }
            const perCall = (ms: number) => (ms * 1000) / Math.max(1, result.total);
            return { echoRate: result.rate, echoP50: result.p50, echoP99: result.p99, echoCpuUs: perCall(result.cost), frontCpuUs: perCall(front) };
        });
    } finally {
        for (const side of sides) {
            await side.close();
        }
    }
}

/**
 * The gateway's memory per wrapped running task: long `trigger-long-running-operation` calls sent
 * as tasks (`task: {}`) over HTTP, held running, and the gateway's RSS read at each step; the
 * figure is the RSS slope over the count. The downstream's own memory is not counted.
 */
export async function gatewayMemory(ctx: Context): Promise<Metrics> {
    const server = await startHttp('ours', ctx.programs, { args: WRAP_ARGS });
    const client = new NodeHttpPoster(ctx.settings.concurrency);
    const points: { x: number; y: number }[] = [];
    try {
        const session = await HttpMcpSession.open(server.url, client);
        const call = (method: string, params: string) => session.callRaw(method, params);
        await waitForEcho(call);
        // One step an hour: no progress while measured, so what grows is the tasks themselves.
        const params = JSON.stringify({ name: 'trigger-long-running-operation', arguments: { duration: 86_400, steps: 24 }, task: {} });
        let created = 0;
        const started = performance.now();
        for (const target of ctx.settings.gatewayTaskPoints) {
            await pool(target - created, ctx.settings.concurrency, () => call('tools/call', params));
            created = target;
            await delay(ctx.settings.settleMs);
            points.push({ x: created, y: rssBytes(server.pid) });
            ctx.log(`      gateway: ${created} running wrapped tasks, RSS ${(points[points.length - 1]!.y / 2 ** 20).toFixed(0)} MiB (${((performance.now() - started) / 1000).toFixed(0)} s)`);
        }
        const first = points[0]!;
        const last = points[points.length - 1]!;
        return { perTask: (last.y - first.y) / (last.x - first.x), fit: slope(points), rssFirst: first.y, rssLast: last.y, tasksFirst: first.x, tasksLast: last.x };
    } finally {
        client.close();
        // Thousands of tasks to cancel downstream on a graceful stop: not worth waiting for.
        for (const pid of childPids(server.pid)) {
            try {
                process.kill(pid, 'SIGKILL');
            } catch {
                // already gone
            }
        }
        server.proc.kill('SIGKILL');
        await server.stop();
    }
}
