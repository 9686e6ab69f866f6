/** An opaque handle from Clock.setTimeout or Clock.setInterval. */
export type ClockTimer = object;

/**
 * Everything time-driven (task expiry, `ctx.sleep`, leases, the idle sweep, keep-alives) reads
 * time and sets timers through this, so tests drive it (a manual clock, or node:test mock
 * timers on the default one) instead of sleeping.
 */
export interface Clock {
    /** Milliseconds since the epoch: timestamps and deadlines. */
    now(): number;
    /**
     * Calls `callback(arg)` once after `ms`. The argument saves a closure per caller (one shared
     * function serves every task). A `background` timer does not keep the process alive.
     */
    setTimeout<A>(callback: (arg: A) => void, ms: number, arg: A, background?: boolean): ClockTimer;
    clearTimeout(timer: ClockTimer | undefined): void;
    setInterval(callback: () => void, ms: number, background?: boolean): ClockTimer;
    clearInterval(timer: ClockTimer | undefined): void;
}

function background<T>(timer: T, unref: boolean | undefined): T {
    if (unref) {
        (timer as { unref?: () => void }).unref?.();
    }
    return timer;
}

/** The real clock. Globals are looked up at each call, so node:test mock timers apply to it too. */
export const systemClock: Clock = {
    now: () => Date.now(),
    setTimeout: (callback, ms, arg, unref) => background(setTimeout(callback, ms, arg), unref),
    clearTimeout: timer => clearTimeout(timer as NodeJS.Timeout | undefined),
    setInterval: (callback, ms, unref) => background(setInterval(callback, ms), unref),
    clearInterval: timer => clearInterval(timer as NodeJS.Timeout | undefined),
};

/**
 * Resolves (never rejects) at whichever comes first: `arm`'s `done` is called, `maxMs` has passed
 * on `clock`, or `signal` aborts. `arm` returns what undoes its hook, run once it resolves. The
 * shape of every "wait for this, but not forever" (a wrapped server coming up, the first starts).
 */
export function waitAtMost(clock: Clock, signal: AbortSignal, maxMs: number, arm: (done: () => void) => (() => void) | void): Promise<void> {
    return new Promise<void>(resolve => {
        // Set once arm returns; done may run before that (arm calls it at once), then it undoes after.
        const hook: { undo?: (() => void) | void } = {};
        let over = false;
        const done = () => {
            if (over) {
                return;
            }
            over = true;
            clock.clearTimeout(timer);
            signal.removeEventListener('abort', done);
            hook.undo?.();
            resolve();
        };
        const timer = clock.setTimeout(done, maxMs, undefined, true);
        signal.addEventListener('abort', done, { once: true });
        hook.undo = arm(done);
        if (over) {
            hook.undo?.();
        }
    });
}
