/** An opaque handle from Clock.setTimeout. */
export type ClockTimer = object;

/**
 * Everything time-driven in the task layer reads time and sets timers through this, so tests
 * drive it (a manual clock, or node:test mock timers on the default one) instead of sleeping.
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
}

/** The real clock. Globals are looked up at each call, so node:test mock timers apply to it too. */
export const systemClock: Clock = {
    now: () => Date.now(),
    setTimeout<A>(callback: (arg: A) => void, ms: number, arg: A, background?: boolean): ClockTimer {
        const timer = setTimeout(callback, ms, arg);
        if (background) {
            (timer as { unref?: () => void }).unref?.();
        }
        return timer;
    },
    clearTimeout(timer: ClockTimer | undefined): void {
        clearTimeout(timer as NodeJS.Timeout | undefined);
    },
};
