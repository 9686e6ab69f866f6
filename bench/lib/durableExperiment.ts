// The durable-store experiment: ours with `--store sqlite` (kind `sqlite`, a fresh data folder for
// each start) against ours with the in-memory store (kind `ours`), through the same measurements as
// the main rows, over HTTP and stdio: what writing every task change through to the file costs.
// Reads are served from memory in both, so tasks/get should barely move; creation writes the file
// twice per task (created, then finished).
import { performance } from 'node:perf_hooks';
import { loadSqlite } from '../../server/src/tasks/sqlite.js';
import { httpThroughput, prefixed, resultLatency, stdioThroughput, type Context, type Metrics } from './experiments.js';
import type { Kind } from './targets.js';

/**
 * Why the experiment cannot run here: the servers run on this same Node.js, and one without
 * node:sqlite would keep its tasks in memory, so both columns would measure the memory store.
 */
export function durableSkipReason(): string | false {
    return loadSqlite() ? false : `this Node.js (${process.version}) has no node:sqlite (22.13 or later has it)`;
}

/** The durable experiment's own sizes in place of the main rows' (see Settings.durable). */
function sized(ctx: Context): Context {
    const { warmupMs, windowMs, resultSamples } = ctx.settings.durable;
    return { ...ctx, settings: { ...ctx.settings, warmupMs, windowMs, resultSamples: { ours: resultSamples, baseline: resultSamples } } };
}

/** One run of one kind: the HTTP suite, the stdio suite (its metrics under `stdio`) and completion → tasks/result (under `result`). */
export async function durableVsMemory(ctx: Context, kind: Kind): Promise<Metrics> {
    const here = sized(ctx);
    const took: string[] = [];
    const measure = async (name: string, run: () => Promise<Metrics>) => {
        const t0 = performance.now();
        const metrics = await run();
        took.push(`${name} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
        return metrics;
    };
    const http = await measure('http', () => httpThroughput(here, kind));
    const stdio = await measure('stdio', () => stdioThroughput(here, kind));
    const result = await measure('result', () => resultLatency(here, kind));
    ctx.log(`      ${kind}: ${took.join(', ')}`);
    return { ...http, ...prefixed('stdio', stdio), ...prefixed('result', result) };
}
