import type { ToolContext } from './types.js';

/**
 * The demos' work: `seconds` of waiting in steps of at most one second, with a progress
 * notification after each (`say(done, ticks)` words it). On a cancel it logs `cancelled(done, ticks)`
 * (tests read that line to know the work really stopped) and rethrows.
 */
export async function countSeconds(
    ctx: ToolContext,
    seconds: number,
    say: (done: number, ticks: number) => string,
    cancelled: (done: number, ticks: number) => string,
): Promise<void> {
    const ticks = Math.ceil(seconds);
    let done = 0;
    try {
        for (let i = 1; i <= ticks; i++) {
            await ctx.sleep(Math.min(1, seconds - (i - 1)) * 1000);
            done = i;
            ctx.progress(Math.min(i, seconds), seconds, say(i, ticks));
        }
    } catch (err) {
        if (ctx.signal.aborted) {
            ctx.log.info(cancelled(done, ticks));
        }
        throw err;
    }
}
