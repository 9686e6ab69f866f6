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
