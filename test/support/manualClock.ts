import { systemClock, type Clock, type ClockTimer } from '../../server/src/util/clock.js';
import { promisesDrained } from './wait.js';

interface Pending {
    at: number;
    seq: number;
    /** Set for intervals: the timer is set again this far after each firing. */
    every?: number;
    fire(): void;
}

/**
 * A virtual clock for the task layer: time moves only when a test calls tick(), which fires the
 * timers that fall due in deadline order, each at its own time, and lets the promise callbacks
 * each one starts run before the next (promisesDrained). Nothing sleeps.
 */
export class ManualClock implements Clock {
    private time: number;
    private seq = 0;
    private readonly timers = new Map<ClockTimer, Pending>();

    constructor(start = Date.parse('2025-06-01T12:00:00.000Z')) {
        this.time = start;
    }

    /** Timers set and not yet fired or cleared. */
    get pending(): number {
        return this.timers.size;
    }

    now(): number {
        return this.time;
    }

    setTimeout<A>(callback: (arg: A) => void, ms: number, arg: A): ClockTimer {
        const handle = {};
        this.timers.set(handle, { at: this.time + Math.max(0, ms), seq: this.seq++, fire: () => callback(arg) });
        return handle;
    }

    clearTimeout(timer: ClockTimer | undefined): void {
        if (timer) {
            this.timers.delete(timer);
        }
    }

    setInterval(callback: () => void, ms: number): ClockTimer {
        const handle = {};
        const every = Math.max(1, ms);
        this.timers.set(handle, { at: this.time + every, seq: this.seq++, every, fire: callback });
        return handle;
    }

    clearInterval(timer: ClockTimer | undefined): void {
        this.clearTimeout(timer);
    }

    /** Moves time forward by `ms`, firing what falls due on the way. */
    async tick(ms: number): Promise<void> {
        const end = this.time + ms;
        for (;;) {
            let next: [ClockTimer, Pending] | undefined;
            for (const entry of this.timers) {
                const [, t] = entry;
                if (t.at <= end && (!next || t.at < next[1].at || (t.at === next[1].at && t.seq < next[1].seq))) {
                    next = entry;
                }
            }
            if (!next) {
                break;
            }
            const [handle, due] = next;
            this.timers.delete(handle);
            this.time = due.at;
            if (due.every !== undefined) {
                this.timers.set(handle, { ...due, at: due.at + due.every, seq: this.seq++ });
            }
            due.fire();
            await promisesDrained();
        }
        this.time = end;
        await promisesDrained();
    }
}

/** The real clock's timers with a `now()` a test moves forward: for stores whose own connections need real time (Redis). */
export class SteppedClock implements Clock {
    private offset = 0;

    now(): number {
        return Date.now() + this.offset;
    }

    advance(ms: number): void {
        this.offset += ms;
    }

    setTimeout<A>(callback: (arg: A) => void, ms: number, arg: A, background?: boolean): ClockTimer {
        return systemClock.setTimeout(callback, ms, arg, background);
    }

    clearTimeout(timer: ClockTimer | undefined): void {
        systemClock.clearTimeout(timer);
    }

    setInterval(callback: () => void, ms: number, background?: boolean): ClockTimer {
        return systemClock.setInterval(callback, ms, background);
    }

    clearInterval(timer: ClockTimer | undefined): void {
        systemClock.clearInterval(timer);
    }
}
