// The bench's side-by-side measurement (issue 15's revision rows): two programs' loops take turns
// in ABBA order and each one's slices merge into one result; a row is judged on the median of
// each round's own 2026-07-28 ÷ 2025-11-25 ratio.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { interleavedLoops } from '../../bench/lib/load.js';
import { pairedRatio, revisionMet, revisionRows } from '../../bench/lib/revisionRows.js';
import { settingsFor } from '../../bench/lib/settings.js';
import { roundsOf } from '../support/benchResults.js';

/** A clock the operations move: each one takes exactly 1 ms, whatever the machine is doing. */
function steppedClock() {
    let ms = 0;
    return { now: () => ms, step: () => void (ms += 1) };
}

describe('interleavedLoops', () => {
    it('runs each target first to warm it, then in turns ABBA…, and merges each target’s slices', async () => {
        const clock = steppedClock();
        const turns: number[] = [];
        const ops = [0, 0];
        const spent = [0, 0];
        const results = await interleavedLoops(
            2,
            1,
            2,
            8,
            4,
            async target => {
                if (turns[turns.length - 1] !== target) {
                    turns.push(target);
                }
                ops[target]!++;
                // Each operation costs its target 1 (target 0) or 3 (target 1) units.
                spent[target]! += target === 0 ? 1 : 3;
                clock.step();
                await Promise.resolve();
            },
            target => spent[target]!,
            clock.now,
        );
        // Warm-ups 0, 1; then slices 0 1 | 1 0 | 0 1 | 1 0 (turns that meet merge in this record).
        assert.deepEqual(turns, [0, 1, 0, 1, 0, 1, 0]);
        assert.equal(results.length, 2);
        for (const target of [0, 1]) {
            const result = results[target]!;
            // Warm-up: 2 ms, 2 operations. Each of 4 slices: 0.5 ms of its own warm-up, then 2 ms;
            // operations start at 0, 1 and 2 ms in, and only the one that starts and ends in the
            // window (1 → 2 ms) counts in the rate, while all three count in total and cost.
            assert.equal(ops[target], 2 + 4 * 3);
            assert.equal(result.total, 4 * 3, 'every operation of the slices, none of the warm-up before them');
            assert.equal(result.ops, 4 * 1);
            assert.equal(result.rate, 4 / (8 / 1000));
            assert.equal(result.cost, result.total * (target === 0 ? 1 : 3));
            assert.equal(result.errors, 0);
            assert.equal(result.latencies.length, result.ops);
        }
    });

    it('reports the first error of any slice', async () => {
        const clock = steppedClock();
        let refusals = 0;
        const [ok, failing] = await interleavedLoops(
            2,
            1,
            1,
            4,
            2,
            async target => {
                clock.step();
                await Promise.resolve();
                // A few refusals only: past 100 a loop gives up (closedLoop).
                if (target === 1 && refusals < 3) {
                    refusals++;
                    throw new Error('refused');
                }
            },
            () => 0,
            clock.now,
        );
        assert.equal(ok!.firstError, undefined);
        assert.equal(failing!.firstError, 'refused');
        assert.equal(failing!.errors, 3);
    });
});

describe('revision rows', () => {
    /** Results of three rounds: 2025-11-25 and 2026-07-28 stdio greet CPU/req of each. */
    const results = (v1: number[], v2: number[]) => roundsOf('revision', 'stdioGreetCpuUs', { ours: v1, v2 });
    const greetRow = revisionRows(settingsFor(true, 'node-http')).find(row => row.transport === 'stdio' && row.judged === 'stdioGreetCpuUs')!;

    it('judges the median of the rounds’ own ratios, not the ratio of the medians', () => {
        // Round by round 1.05, 1.05, 1.5: a slow round of the whole machine (the third) moves neither side apart.
        const steady = results([10, 20, 8], [10.5, 21, 12]);
        assert.equal(pairedRatio(steady, 'revision', 'stdioGreetCpuUs').toFixed(2), '1.05');
        assert.equal(revisionMet(steady, greetRow), true);
        // Each round 1.2× over: fails, whatever the load of each round was.
        const costly = results([10, 20, 8], [12, 24, 9.6]);
        assert.equal(revisionMet(costly, greetRow), false);
    });

    it('has no verdict without both sides', () => {
        assert.equal(revisionMet(results([10, 20], []), greetRow), undefined);
        assert.ok(Number.isNaN(pairedRatio(new Map(), 'revision', 'stdioGreetCpuUs')));
    });
});
