import type { CallToolResult, ToolContext } from '../tools/types.js';

/**
 * What a demo that waits says and returns, given its arguments. A tool keeps one of these as a
 * module constant, so a waiting task holds no closures of its own for it.
 */
export interface Counting<A extends { seconds: number }> {
    /** The progress message after `done` of `ticks` seconds. */
    progress(args: A, done: number, ticks: number): string;
    /** The line logged on a cancel; tests read it to know the work really stopped. */
    cancelled(args: A, done: number, ticks: number): string;
    /** The tool's result once the waiting is over, `elapsedMs` after it began. */
    result(args: A, elapsedMs: number): CallToolResult;
}

/**
 * The demos' work, and their whole `run`: `args.seconds` of waiting in steps of at most one
 * second, with a progress notification after each, then the result. On a cancel it logs the
 * cancelled line and rethrows. It is the only async frame of a waiting demo task: a second one
 * (a `run` awaiting this) cost each of 10,000s of ticking tasks about 600 bytes of heap.
 */
export async function countSeconds<A extends { seconds: number }>(ctx: ToolContext, args: A, counting: Counting<A>): Promise<CallToolResult> {
    const started = performance.now();
    const { seconds } = args;
    const ticks = Math.ceil(seconds);
    let done = 0;
    try {
        for (let i = 1; i <= ticks; i++) {
            await ctx.sleep(Math.min(1, seconds - (i - 1)) * 1000);
            done = i;
            ctx.progress(Math.min(i, seconds), seconds, counting.progress(args, i, ticks));
        }
    } catch (err) {
        if (ctx.signal.aborted) {
            ctx.log.info(counting.cancelled(args, done, ticks));
        }
        throw err;
    }
    return counting.result(args, performance.now() - started);
}
