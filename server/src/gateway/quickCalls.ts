import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { ToolContext } from '../tools/types.js';

/** Calls in a row, each ended under QUICK_MS, after which a tool counts as quick. */
export const QUICK_CALLS = 20;
/** A call shorter than this is quick: far below any --defer-after a host needs (tens of seconds). */
export const QUICK_MS = 1000;

/**
 * Whether a wrapped tool's plain calls ask its server for progress (`_meta.progressToken`).
 * Asking costs the server work on every call (server-everything's echo: about 1.5 µs of its 16),
 * so a call asks only when the progress can be read: now (a task, or a host that sent its own
 * token) or later (a call --defer-after may turn into a task), and for the later case only while
 * the tool's calls have not all been quick lately. A call that was not asked and then runs long
 * (and so may be deferred) reports no progress to its task; from its end on, the tool asks again.
 */
export class QuickCalls {
    /** Quick calls in a row, up to QUICK_CALLS. */
    private streak = 0;

    constructor(
        private readonly clock: Clock,
        /** How the log names the tool: `[server] tool`. */
        private readonly named: string,
        private readonly calls = QUICK_CALLS,
        private readonly quickMs = QUICK_MS,
    ) {}

    /** Whether a call with this context asks for progress. */
    asksProgress(ctx: Pick<ToolContext, 'progressWatched' | 'onDeferred'>): boolean {
        return ctx.progressWatched !== false || (ctx.onDeferred !== undefined && this.streak < this.calls);
    }

    /** The time a call starts, for ended. */
    started(): number {
        return this.clock.now();
    }

    /**
     * A call that started at `startedAt` ended, having asked for progress or not; whether it was
     * long. A long one that did not ask is logged: it is why its task (if deferred) showed none.
     */
    ended(startedAt: number, asked: boolean, log: Pick<Logger, 'info'>): boolean {
        if (this.clock.now() - startedAt < this.quickMs) {
            if (this.streak < this.calls) {
                this.streak++;
            }
            return false;
        }
        this.streak = 0;
        if (!asked) {
            log.info(`${this.named} ran longer than its recent calls, without asking the wrapped server for progress; its calls ask again from now on`);
        }
        return true;
    }
}
