import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROGRESS_BURST, PROGRESS_WINDOW_MS, progressText, ProgressRelay } from '../../../../server/src/gateway/progressRelay.js';
import { ManualClock } from '../../../support/manualClock.js';

// A downstream's progress flood reaches the host as at most one update per window, the newest kept.

describe('the progress relay', () => {
    it('passes an ordinary server\'s updates untouched: a burst of up to PROGRESS_BURST per window', async () => {
        const clock = new ManualClock();
        const sent: number[] = [];
        const relay = new ProgressRelay({ progress: progress => void sent.push(progress) }, clock);
        for (let i = 1; i <= PROGRESS_BURST; i++) {
            relay.onProgress({ progress: i });
        }
        assert.equal(sent.length, PROGRESS_BURST);
        relay.close();
        assert.equal(clock.pending, 0);
    });

    it('beyond the burst, sends the newest of each window, and the rest on close', async () => {
        const clock = new ManualClock();
        const sent: [progress: number, total?: number, message?: string][] = [];
        const relay = new ProgressRelay({ progress: (...update) => void sent.push(update) }, clock, PROGRESS_WINDOW_MS, 1);
        for (let i = 1; i <= 1000; i++) {
            relay.onProgress({ progress: i, total: 2000, message: `item ${i}` });
        }
        assert.deepEqual(sent, [[1, 2000, 'item 1']]);
        await clock.tick(PROGRESS_WINDOW_MS);
        assert.deepEqual(sent.at(-1), [1000, 2000, 'item 1000']);
        assert.equal(sent.length, 2);
        relay.onProgress({ progress: 1001 });
        relay.onProgress({ progress: 1002 });
        relay.close();
        assert.deepEqual(
            sent.map(update => update[0]),
            [1, 1000, 1002],
        );
        relay.onProgress({ progress: 1003 });
        await clock.tick(PROGRESS_WINDOW_MS);
        assert.equal(sent.length, 3, 'nothing after close');
        assert.equal(clock.pending, 0, 'no timer left');
    });

    it('gives numbers-only progress with a total words a person can read; a message or a bare count passes as it came', () => {
        const clock = new ManualClock();
        const sent: [progress: number, total?: number, message?: string][] = [];
        const relay = new ProgressRelay({ progress: (...update) => void sent.push(update) }, clock);
        relay.onProgress({ progress: 3, total: 5 });
        relay.onProgress({ progress: 4, total: 5, message: 'copying' });
        relay.onProgress({ progress: 1234 });
        relay.close();
        assert.deepEqual(sent, [
            [3, 5, '60% (3 of 5)'],
            [4, 5, 'copying'],
            [1234, undefined, undefined],
        ]);
        assert.equal(progressText({ progress: 7, total: 0 }), undefined);
        assert.equal(progressText({ progress: 12, total: 10 }), '100% (12 of 10)');
    });
});
