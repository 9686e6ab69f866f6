// The durable-store experiment: ours with `--store sqlite` (kind `sqlite`, a fresh data folder for
// each start) against ours with the in-memory store (kind `ours`), through the same measurements as
// the main rows, over HTTP and stdio: what writing every task change through to the file costs.
// Reads are served from memory in both, so tasks/get should barely move; creation writes each task
// to the file once: slow_compute of 0 s ends before its task is written, so the one row holds its end.
// The two servers run side by side and each loaded phase takes them in turns, as in the revision
// experiment: on the shared machine, stores measured a few seconds apart moved their ratio by more
// than the store itself (one --quick round read 0.75× and 0.19× for the same build).
import { performance } from 'node:perf_hooks';
import { loadSqlite } from '../../server/src/tasks/sqlite.js';
import { httpThroughputOf, prefixed, resultLatency, stdioThroughputOf, type Context, type Metrics } from './experiments.js';
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

/**
 * One round: the HTTP suite and the stdio suite (its metrics under `stdio`) on both stores side by
 * side, then completion → tasks/result (under `result`) on each in turn, in the order given.
 */
export async function durableVsMemory(ctx: Context, kinds: Kind[]): Promise<Metrics[]> {
    const here = sized(ctx);
    const took: string[] = [];
    const measure = async <T>(name: string, run: () => Promise<T>) => {
        const t0 = performance.now();
        const metrics = await run();
        took.push(`${name} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
        return metrics;
    };
    const http = await measure('http', () => httpThroughputOf(here, kinds));
    const stdio = await measure('stdio', () => stdioThroughputOf(here, kinds));
    // A result's latency is one light request at a time: nothing for the two servers to take turns over.
    const result = await measure('result', async () => {
        const each: Metrics[] = [];
        for (const kind of kinds) {
            each.push(await resultLatency(here, kind));
        }
        return each;
    });
    ctx.log(`      ${kinds.join(' + ')}: ${took.join(', ')}`);
    return kinds.map((_, i) => ({ ...http[i]!, ...prefixed('stdio', stdio[i]!), ...prefixed('result', result[i]!) }));
}
