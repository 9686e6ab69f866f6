/**
 * The timers the transports use, injectable so tests drive time instead of sleeping. The default
 * looks the globals up on each call, so `node:test` mock timers reach it too.
 */
export interface TimerHandle {
    unref?(): unknown;
}

export interface Clock {
    now(): number;
    setTimeout(callback: () => void, ms: number): TimerHandle;
    clearTimeout(handle: TimerHandle): void;
    setInterval(callback: () => void, ms: number): TimerHandle;
    clearInterval(handle: TimerHandle): void;
}

/** Wall-clock time; its timers never keep the process alive on their own. */
export const realClock: Clock = {
    now: () => Date.now(),
    setTimeout(callback, ms) {
        const handle = setTimeout(callback, ms);
        handle.unref?.();
        return handle;
    },
    clearTimeout: handle => clearTimeout(handle as NodeJS.Timeout),
    setInterval(callback, ms) {
        const handle = setInterval(callback, ms);
        handle.unref?.();
        return handle;
    },
    clearInterval: handle => clearInterval(handle as NodeJS.Timeout),
};
