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
    /** Each counted operation's latency, ms (for merging slices). */
    latencies: number[];
    /** What `cost` (when given) grew by over the whole run, warm-up included. */
    cost: number;
}

/** Milliseconds on a monotonic clock; a test passes its own, which it moves itself. */
export type Clock = () => number;

const monotonic: Clock = () => performance.now();

export async function closedLoop(
    concurrency: number,
    warmupMs: number,
    durationMs: number,
    op: (worker: number, seq: number) => Promise<unknown>,
    cost: () => number = () => 0,
    now: Clock = monotonic,
): Promise<LoadResult> {
    const cost0 = cost();
    const start = now();
    const from = start + warmupMs;
    const until = from + durationMs;
    const latencies: number[] = [];
    let errors = 0;
    let firstError: string | undefined;
    let seq = 0;
    let total = 0;
    const worker = async (index: number) => {
        for (;;) {
            const t0 = now();
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
            const t1 = now();
            if (t0 >= from && t1 <= until) {
                latencies.push(t1 - t0);
            }
        }
    };
    await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
    return summary(latencies, total, durationMs, errors, firstError, cost() - cost0);
}

function summary(latencies: number[], total: number, durationMs: number, errors: number, firstError: string | undefined, cost: number): LoadResult {
    return { ops: latencies.length, total, rate: latencies.length / (durationMs / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, firstError, latencies, cost };
}

/** `items` in the order of turn `turn`: as given on even turns, reversed on odd ones (ABBA…). */
export function inTurn<T>(items: readonly T[], turn: number): readonly T[] {
    return turn % 2 === 0 ? items : [...items].reverse();
}

/** How long each slice of interleavedLoops first refills the pipeline (its operations and cost still count in `total` and `cost`). */
/**
 * The same closed loop on several targets, taken in turns: a warm-up of each, then `slices` short
 * windows of each (order ABBA…), so that a change in the machine's load in the middle falls on
 * every target alike and their ratio holds where separate windows would not. Each target's
 * slices add up to `durationMs`; its result merges them.
 */
export async function interleavedLoops(
    targets: number,
    concurrency: number,
    warmupMs: number,
    durationMs: number,
    slices: number,
    op: (target: number, worker: number, seq: number) => Promise<unknown>,
    cost: (target: number) => number,
    now: Clock = monotonic,
): Promise<LoadResult[]> {
    const indexes = Array.from({ length: targets }, (_, i) => i);
    const warmups: LoadResult[] = [];
    for (const target of indexes) {
        warmups.push(await closedLoop(concurrency, warmupMs, 0, (w, n) => op(target, w, n), () => cost(target), now));
    }
    const parts: LoadResult[][] = indexes.map(() => []);
    const sliceMs = durationMs / slices;
    for (let slice = 0; slice < slices; slice++) {
        for (const target of inTurn(indexes, slice)) {
            parts[target]!.push(await closedLoop(concurrency, Math.min(SLICE_WARMUP_MS, sliceMs / 4), sliceMs, (w, n) => op(target, w, n), () => cost(target), now));
        }
    }
    // The warm-ups' operations and cost stay out of the figures; their errors do not (as in closedLoop).
    return parts.map((part, target) => {
        const sum = (pick: (r: LoadResult) => number) => part.reduce((acc, r) => acc + pick(r), 0);
        const warmup = warmups[target]!;
        return summary(
            part.flatMap(r => r.latencies),
            sum(r => r.total),
            durationMs,
            warmup.errors + sum(r => r.errors),
            warmup.firstError ?? part.find(r => r.firstError)?.firstError,
            sum(r => r.cost),
        );
    });
}

const SLICE_WARMUP_MS = 50;

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
