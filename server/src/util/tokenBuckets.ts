import type { Clock } from './clock.js';

interface Bucket {
    /** What it holds, in sixtieth-thousandths of a token (see TokenBuckets). */
    credit: number;
    /** When `credit` was counted. */
    at: number;
}

/** A token in credit: a bucket gains `perMinute` credit a millisecond, so a minute brings `perMinute` tokens. */
const TOKEN = 60_000;

/**
 * A token bucket per key: each holds at most `burst` tokens and gains `perMinute` a minute,
 * evenly; a key that has none left is told how long until it has one. Refills are computed from
 * the clock when a key takes, so no timer runs and tests move time with the clock. Counting in
 * whole units of credit keeps every wait exact (no floating-point remainder adds a millisecond).
 * Keys are meant to be few (one per credential): a bucket is kept once made.
 */
export class TokenBuckets {
    private readonly buckets = new Map<string, Bucket>();
    private readonly full: number;

    constructor(
        private readonly perMinute: number,
        burst: number,
        private readonly clock: Clock,
    ) {
        this.full = burst * TOKEN;
    }

    /** Takes one of `key`'s tokens and answers 0; with none there, takes nothing and answers the milliseconds until one is. */
    take(key: string): number {
        const now = this.clock.now();
        let bucket = this.buckets.get(key);
        if (!bucket) {
            bucket = { credit: this.full, at: now };
            this.buckets.set(key, bucket);
        } else {
            bucket.credit = Math.min(this.full, bucket.credit + (now - bucket.at) * this.perMinute);
            bucket.at = now;
        }
        if (bucket.credit < TOKEN) {
            return Math.ceil((TOKEN - bucket.credit) / this.perMinute);
        }
        bucket.credit -= TOKEN;
        return 0;
    }
}
