// Closed-loop load: `concurrency` workers each issue one operation after another; only the
// operations that start after the warm-up and end before the deadline count.
import { performance } from 'node:perf_hooks';
import { percentile } from './stats.js';

export interface LoadResult {
    ops: number;
    /** Every operation completed, warm-up included. */
    total: number;
    rate: number;
    p50: number;
    p99: number;
    errors: number;
    firstError?: string;
}

export async function closedLoop(concurrency: number, warmupMs: number, durationMs: number, op: (worker: number, seq: number) => Promise<unknown>): Promise<LoadResult> {
    const start = performance.now();
    const from = start + warmupMs;
    const until = from + durationMs;
    const latencies: number[] = [];
    let errors = 0;
    let firstError: string | undefined;
    let seq = 0;
    let total = 0;
    const worker = async (index: number) => {
        for (;;) {
            const t0 = performance.now();
            if (t0 >= until) {
                return;
            }
            try {
                await op(index, seq++);
            } catch (err) {
                errors++;
                firstError ??= err instanceof Error ? err.message : String(err);
                if (errors > 100) {
                    throw new Error(`too many errors: ${firstError}`, { cause: err });
                }
                continue;
            }
            total++;
            const t1 = performance.now();
            if (t0 >= from && t1 <= until) {
                latencies.push(t1 - t0);
            }
        }
    };
    await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
    return { ops: latencies.length, total, rate: latencies.length / (durationMs / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, firstError };
}

/** Runs `count` operations with at most `concurrency` in flight. */
export async function pool(count: number, concurrency: number, op: (index: number) => Promise<unknown>): Promise<void> {
    let next = 0;
    const worker = async () => {
        while (next < count) {
            await op(next++);
        }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

export function delay(ms: number): Promise<void> {
    return new Promise(resolve => setTimeout(resolve, ms));
}
