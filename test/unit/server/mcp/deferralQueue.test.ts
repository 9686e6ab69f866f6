import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeferralQueue, type Deferrable } from '../../../../server/src/mcp/defer.js';
import { ManualClock } from '../../../support/manualClock.js';

// The one timer behind every plain call's --defer-after deadline: each call's time is up at its
// own deadline, a call that ended first never hears of it, and the timer stays one however many
// calls wait.

function call(name: string, upAt: string[], clock: ManualClock): Deferrable {
    return {
        deadline: 0,
        timeUp: () => upAt.push(`${name}@${clock.now() - START}`),
    };
}

const START = Date.parse('2025-06-01T12:00:00.000Z');

describe('DeferralQueue', () => {
    it('ends each waiting call at its own deadline and skips the ones that ended first', async () => {
        const clock = new ManualClock(START);
        const queue = DeferralQueue.of(clock);
        const upAt: string[] = [];
        const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(name => call(name, upAt, clock));
        queue.add(a!, 100);
        await clock.tick(10);
        queue.add(b!, 100);
        await clock.tick(10);
        queue.add(c!, 100);
        assert.equal(clock.pending, 1, 'one timer for all the calls');
        queue.remove(a!);
        await clock.tick(100);
        assert.deepEqual(upAt, ['b@110', 'c@120']);
        // After the queue emptied, a new call still gets its time up, and a removed call stays removed.
        queue.add(d!, 50);
        queue.remove(a!);
        await clock.tick(49);
        assert.deepEqual(upAt, ['b@110', 'c@120']);
        await clock.tick(1);
        assert.deepEqual(upAt, ['b@110', 'c@120', 'd@170']);
        assert.equal(clock.pending, 0);
    });

    it('keeps deadline order when a shorter wait is queued after a longer one', async () => {
        const clock = new ManualClock(START);
        const queue = DeferralQueue.of(clock);
        const upAt: string[] = [];
        const [long, short] = ['long', 'short'].map(name => call(name, upAt, clock));
        queue.add(long!, 300);
        queue.add(short!, 100);
        await clock.tick(300);
        assert.deepEqual(upAt, ['short@100', 'long@300']);
    });

    it('is one queue per clock', () => {
        const clock = new ManualClock(START);
        assert.equal(DeferralQueue.of(clock), DeferralQueue.of(clock));
        assert.notEqual(DeferralQueue.of(clock), DeferralQueue.of(new ManualClock(START)));
    });
});
