// The revision experiment: ours driven by a 2025-11-25 client (kind `ours`: initialize, one session)
// against ours driven by a 2026-07-28 client (kind `v2`: no session, `_meta` and headers on every
// request), through the same measurements, so that what statelessness costs per request shows.
// The two programs run side by side and each measurement takes them in turns: the figures of both
// clients come from the same minutes of the shared machine, so their ratio holds when its load
// changes (measured apart, a minute's difference in load moved a ratio by 30 % and more).
import { performance } from 'node:perf_hooks';
import { cancelLatencyOf, httpThroughputOf, prefixed, stdioThroughputOf, type Context, type Metrics } from './experiments.js';
import type { Kind } from './targets.js';

/** One round of the experiment: the metrics of each kind, in the order given (which also goes first in each turn). */
export async function revisionVsSession(ctx: Context, kinds: Kind[]): Promise<Metrics[]> {
    const took: string[] = [];
    const measure = async (name: string, run: () => Promise<Metrics[]>) => {
        const t0 = performance.now();
        const metrics = await run();
        took.push(`${name} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
        return metrics;
    };
    // tasks/get over completed tasks for both: under 2026-07-28 each answer inlines the result.
    const http = await measure('http', () => httpThroughputOf(ctx, kinds, { getCompleted: true }));
    const stdio = await measure('stdio', () => stdioThroughputOf(ctx, kinds, { getCompleted: true }));
    const cancel = await measure('cancel', () => cancelLatencyOf(ctx, kinds));
    ctx.log(`      ${kinds.join(' + ')}: ${took.join(', ')}`);
    return kinds.map((_, i) => ({ ...http[i]!, ...prefixed('stdio', stdio[i]!), ...prefixed('cancel', cancel[i]!) }));
}
