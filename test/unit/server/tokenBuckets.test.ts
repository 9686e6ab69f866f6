import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenBuckets } from '../../../server/src/util/tokenBuckets.js';
import { ManualClock } from '../../support/manualClock.js';

// The rate limit on new HTTP sessions (SessionLimiter) is one of these per endpoint: time is the
// clock's, so every figure here is exact.

describe('TokenBuckets', () => {
    it('gives a burst at once, then refuses with the wait until the next token, which then comes', async () => {
        const clock = new ManualClock();
        // 6 a minute: one every 10 s, at most 3 at once.
        const buckets = new TokenBuckets(6, 3, clock);
        assert.deepEqual([buckets.take('a'), buckets.take('a'), buckets.take('a')], [0, 0, 0]);
        assert.equal(buckets.take('a'), 10_000);
        await clock.tick(4000);
        assert.equal(buckets.take('a'), 6000, 'a refusal takes nothing: the wait only shrinks');
        await clock.tick(5999);
        assert.equal(buckets.take('a'), 1);
        await clock.tick(1);
        assert.equal(buckets.take('a'), 0);
        assert.equal(buckets.take('a'), 10_000);
    });

    it('refills evenly up to the burst and no further', async () => {
        const clock = new ManualClock();
        const buckets = new TokenBuckets(6, 3, clock);
        for (let i = 0; i < 3; i++) {
            buckets.take('a');
        }
        // Long quiet: the bucket holds 3 again, not the 60 minutes' worth.
        await clock.tick(60 * 60_000);
        assert.deepEqual([buckets.take('a'), buckets.take('a'), buckets.take('a')], [0, 0, 0]);
        assert.equal(buckets.take('a'), 10_000);
        // 25 s refill two and a half.
        await clock.tick(25_000);
        assert.deepEqual([buckets.take('a'), buckets.take('a'), buckets.take('a')], [0, 0, 5000]);
    });

    it('keeps each key to its own bucket', () => {
        const clock = new ManualClock();
        const buckets = new TokenBuckets(60, 1, clock);
        assert.equal(buckets.take('a'), 0);
        assert.equal(buckets.take('a'), 1000);
        assert.equal(buckets.take('b'), 0, 'another key is untouched by the first one running out');
    });
});
