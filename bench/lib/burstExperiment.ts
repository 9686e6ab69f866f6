// 500 command starts at once from one client, seen by another client of the same server: the
// server's event-loop delay is not readable from outside, so the other client's ping latency
// (one ping after another, all through the burst) stands for it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Context, Metrics } from './experiments.js';
import { HttpMcpSession, NodeHttpPoster } from './httpClient.js';
import { percentile } from './stats.js';
import { startHttp } from './targets.js';

export const BURST_STARTS = 500;
/** The burst's client keeps this many requests on the wire at once. */
const BURST_SOCKETS = 100;

/** One burst against a fresh server with these extra flags: the other client's ping latency through it. */
async function burst(ctx: Context, file: string, flags: string[]): Promise<Metrics> {
    const server = await startHttp('ours', ctx.programs, { args: ['--commands', file, ...flags] });
    const burstPoster = new NodeHttpPoster(BURST_SOCKETS);
    const otherPoster = new NodeHttpPoster(1);
    try {
        const starter = await HttpMcpSession.open(server.url, burstPoster);
        const other = await HttpMcpSession.open(server.url, otherPoster);
        let bursting = true;
        const pings: number[] = [];
        const pinger = (async () => {
            while (bursting) {
                const sent = performance.now();
                await other.call('ping');
                pings.push(performance.now() - sent);
            }
        })();
        const started = performance.now();
        const answers = await Promise.all(Array.from({ length: BURST_STARTS }, () => starter.call('tools/call', { name: 'start_quick', arguments: {} })));
        const taskIds = answers.map(answer => (answer.structuredContent as { task_id: string }).task_id);
        // The burst is over once every run has ended (tasks/result answers then).
        await Promise.all(taskIds.map(taskId => starter.call('tasks/result', { taskId })));
        const seconds = (performance.now() - started) / 1000;
        bursting = false;
        await pinger;
        return { pingP99Ms: percentile(pings, 99), pingMaxMs: Math.max(...pings), pings: pings.length, seconds };
    } finally {
        burstPoster.close();
        otherPoster.close();
        await server.stop();
    }
}

/** BURST_STARTS start_<tool> calls at once, under the default process cap and with every run at once. */
export async function burstStarts(ctx: Context): Promise<Metrics> {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-bench-burst-'));
    try {
        const file = join(dir, 'commands.json');
        writeFileSync(file, JSON.stringify({ tools: [{ name: 'quick', description: 'Ends at once.', command: ['true'], whenBusy: 'queue' }] }));
        const capped = await burst(ctx, file, []);
        const uncapped = await burst(ctx, file, ['--max-command-processes', String(BURST_STARTS)]);
        const prefixed = (prefix: string, metrics: Metrics) => Object.fromEntries(Object.entries(metrics).map(([key, value]) => [`${prefix}${key[0]!.toUpperCase()}${key.slice(1)}`, value]));
        return { ...prefixed('capped', capped), ...prefixed('uncapped', uncapped) };
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}
