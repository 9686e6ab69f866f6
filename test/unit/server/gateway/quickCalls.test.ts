import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QUICK_CALLS, QUICK_MS, QuickCalls } from '../../../../server/src/gateway/quickCalls.js';
import { ManualClock } from '../../../support/manualClock.js';

// When a wrapped tool's plain call asks its server for progress: whenever the progress can be read
// now, and for a call --defer-after may turn into a task, until the tool's calls are all quick.

const deferrable = { progressWatched: false, onDeferred: () => undefined };
const silent = { info: () => undefined };
const unwatched = { progressWatched: false };

/** Runs `count` calls of `ms` each, one after another. */
async function calls(quick: QuickCalls, clock: ManualClock, count: number, ms: number): Promise<void> {
    for (let i = 0; i < count; i++) {
        const startedAt = quick.started();
        await clock.tick(ms);
        quick.ended(startedAt, true, silent);
    }
}

describe('QuickCalls', () => {
    it('asks while someone reads the progress: a task, a call whose host sent a token', () => {
        const quick = new QuickCalls(new ManualClock(), '[srv] tool');
        assert.equal(quick.asksProgress({}), true, 'a task context says nothing: it keeps progress');
        assert.equal(quick.asksProgress({ progressWatched: true, onDeferred: () => undefined }), true);
    });

    it('never asks for a plain call no one reads and none can defer', () => {
        assert.equal(new QuickCalls(new ManualClock(), '[srv] tool').asksProgress(unwatched), false);
    });

    it('asks for a deferrable call until QUICK_CALLS quick calls in a row, then stops', async () => {
        const clock = new ManualClock();
        const quick = new QuickCalls(clock, '[srv] tool');
        await calls(quick, clock, QUICK_CALLS - 1, QUICK_MS - 1);
        assert.equal(quick.asksProgress(deferrable), true);
        await calls(quick, clock, 1, QUICK_MS - 1);
        assert.equal(quick.asksProgress(deferrable), false);
        assert.equal(quick.asksProgress({ progressWatched: true, onDeferred: () => undefined }), true, 'a host that asked still gets it');
    });

    it('asks again from the end of one long call, and logs a long call that did not ask', async () => {
        const clock = new ManualClock();
        const quick = new QuickCalls(clock, '[srv] tool');
        const logged: string[] = [];
        const log = { info: (line: string) => void logged.push(line) };
        await calls(quick, clock, QUICK_CALLS, 1);
        assert.equal(quick.asksProgress(deferrable), false);
        const startedAt = quick.started();
        await clock.tick(QUICK_MS);
        assert.equal(quick.ended(startedAt, false, log), true);
        assert.deepEqual(logged, ['[srv] tool ran longer than its recent calls, without asking the wrapped server for progress; its calls ask again from now on']);
        assert.equal(quick.asksProgress(deferrable), true);
        // A long call that asked is not worth a line.
        const asked = quick.started();
        await clock.tick(QUICK_MS);
        assert.equal(quick.ended(asked, true, log), true);
        assert.equal(logged.length, 1);
        // The streak starts over.
        await calls(quick, clock, QUICK_CALLS - 1, 1);
        assert.equal(quick.asksProgress(deferrable), true);
    });

    it('counts calls that overlap by when each ends', async () => {
        const clock = new ManualClock();
        const quick = new QuickCalls(clock, '[srv] tool');
        const starts = Array.from({ length: QUICK_CALLS }, () => quick.started());
        const long = quick.started();
        await clock.tick(10);
        for (const startedAt of starts) {
            assert.equal(quick.ended(startedAt, true, silent), false);
        }
        assert.equal(quick.asksProgress(deferrable), false);
        await clock.tick(QUICK_MS);
        assert.equal(quick.ended(long, true, silent), true);
        assert.equal(quick.asksProgress(deferrable), true);
    });
});
