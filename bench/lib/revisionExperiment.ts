// The revision experiment: ours driven by a 2025-11-25 client (kind `ours`: initialize, one session)
// against ours driven by a 2026-07-28 client (kind `v2`: no session, `_meta` and headers on every
// request), through the same measurements, so that what statelessness costs per request shows.
import { performance } from 'node:perf_hooks';
import { cancelLatency, httpThroughput, stdioThroughput, type Context, type Metrics } from './experiments.js';
import type { Kind } from './targets.js';

/** `p50` under `cancel` → `cancelP50`. */
function prefixed(prefix: string, metrics: Metrics): Metrics {
    return Object.fromEntries(Object.entries(metrics).map(([key, value]) => [`${prefix}${key[0]!.toUpperCase()}${key.slice(1)}`, value]));
}

export async function revisionVsSession(ctx: Context, kind: Kind): Promise<Metrics> {
    const took: string[] = [];
    const measure = async (name: string, run: () => Promise<Metrics>) => {
        const t0 = performance.now();
        const metrics = await run();
        took.push(`${name} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
        return metrics;
    };
    // tasks/get over completed tasks for both: under 2026-07-28 each answer inlines the result.
    const http = await measure('http', () => httpThroughput(ctx, kind, { getCompleted: true }));
    const stdio = await measure('stdio', () => stdioThroughput(ctx, kind, { getCompleted: true }));
    const cancel = await measure('cancel', () => cancelLatency(ctx, kind));
    ctx.log(`      ${kind}: ${took.join(', ')}`);
    return { ...http, ...prefixed('stdio', stdio), ...prefixed('cancel', cancel) };
}
