import type { Clock, ClockTimer } from '../util/clock.js';
import type { ToolContext } from '../tools/types.js';

/** Progress updates pass as they come up to PROGRESS_BURST per window; beyond that, the newest of the window. */
export const PROGRESS_WINDOW_MS = 100;
export const PROGRESS_BURST = 10;

interface Update {
    progress: number;
    total?: number;
    message?: string;
}

/**
 * Whether a wrapped tool's call asks its server for progress (`_meta.progressToken`): when the
 * progress can be read now (a task, or a host that sent its own token) or later (a plain call
 * --defer-after may turn into a task, whose progress a host then follows). Asking costs the
 * server a little work per call (server-everything's echo: about 1.5 µs of its 16), which a call
 * whose progress can never reach anyone is spared.
 */
export function asksProgress(ctx: Pick<ToolContext, 'progressWatched' | 'onDeferred'>): boolean {
    return ctx.progressWatched !== false || ctx.onDeferred !== undefined;
}

/**
 * Passes a downstream's progress to our call's context. A downstream that floods progress (a loop
 * reporting every item) would otherwise become as many notifications to the host and, for a task,
 * as many store writes: the first PROGRESS_BURST updates of a window go at once (so an ordinary
 * server's updates pass untouched), later ones wait for the window's end and only the newest is
 * sent (a message never overtakes a later one).
 */
export class ProgressRelay {
    private pending?: Update;
    private timer?: ClockTimer;
    private closed = false;
    private sentInWindow = 0;

    constructor(
        private readonly ctx: Pick<ToolContext, 'progress'>,
        private readonly clock: Clock,
        private readonly windowMs = PROGRESS_WINDOW_MS,
        private readonly burst = PROGRESS_BURST,
    ) {}

    readonly onProgress = (update: Update): void => {
        if (this.closed || typeof update.progress !== 'number') {
            return;
        }
        if (this.sentInWindow >= this.burst) {
            this.pending = update;
            return;
        }
        this.send(update);
        this.sentInWindow++;
        this.timer ??= this.clock.setTimeout(relay => relay.windowEnded(), this.windowMs, this, true);
    };

    /** Sends what waits and stops relaying (the call has ended). */
    close(): void {
        if (this.closed) {
            return;
        }
        this.clock.clearTimeout(this.timer);
        this.timer = undefined;
        const last = this.pending;
        this.pending = undefined;
        if (last) {
            this.send(last);
        }
        this.closed = true;
    }

    private windowEnded(): void {
        this.timer = undefined;
        this.sentInWindow = 0;
        const next = this.pending;
        this.pending = undefined;
        if (next && !this.closed) {
            this.onProgress(next);
        }
    }

    private send(update: Update): void {
        this.ctx.progress(update.progress, update.total, update.message ?? progressText(update));
    }
}

/**
 * Words for an update that carries numbers only: get_task, a task list and the editor's row show a
 * task's latest message, and a wrapped server that reports 3 of 5 without one would show nothing.
 * Only with a total: a bare count may be bytes, items or anything else.
 */
export function progressText(update: Update): string | undefined {
    const { progress, total } = update;
    if (typeof total !== 'number' || !(total > 0) || !Number.isFinite(progress)) {
        return undefined;
    }
    const percent = Math.max(0, Math.min(100, Math.round((progress / total) * 100)));
    return `${percent}% (${progress} of ${total})`;
}
