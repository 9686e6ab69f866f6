import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InFlight } from '../../../../server/src/rpc/inFlight.js';

// The table of requests in flight by id (slots for numbers and a dictionary object for strings
// instead of a Map, for the GC): it must keep the Map's meaning, above all that a number id and a
// string id are different requests.

describe('InFlight', () => {
    it('keeps ids 1 and "1" apart, counts entries and says whether a delete removed one', () => {
        const table = new InFlight<string>();
        table.set(1, 'number');
        table.set('1', 'string');
        table.set('__proto__', 'odd name');
        assert.equal(table.size, 3);
        assert.equal(table.get(1), 'number');
        assert.equal(table.get('1'), 'string');
        assert.equal(table.get('__proto__'), 'odd name');
        assert.equal(table.has(2), false);
        table.set(1, 'replaced');
        assert.equal(table.size, 3);
        assert.equal(table.delete(1), true);
        assert.equal(table.delete(1), false);
        assert.equal(table.get('1'), 'string');
        assert.deepEqual(table.values().sort(), ['odd name', 'string']);
        table.clear();
        assert.equal(table.size, 0);
        assert.equal(table.get('1'), undefined);
    });

    it('stays right under churn: entries added and removed one by one, a few live at a time', () => {
        const table = new InFlight<number>();
        for (let id = 1; id <= 10_000; id++) {
            table.set(id, id);
            table.set(`s${id}`, id);
            if (id > 32) {
                assert.equal(table.delete(id - 32), true);
                assert.equal(table.delete(`s${id - 32}`), true);
            }
        }
        assert.equal(table.size, 64);
        assert.equal(table.get(10_000 - 31), 10_000 - 31);
        assert.equal(table.get(10_000 - 32), undefined);
    });

    it('agrees with a Map over number ids that share slots: added, replaced and removed in any order, growing and shrinking', () => {
        const table = new InFlight<number>();
        const model = new Map<number, number>();
        // Ids 64 apart share a slot at every table size up to 64 slots; negatives, fractions and
        // ids past 2^32 fold to slots too. A fixed-seed generator keeps the run the same each time.
        const ids = [0, 64, 128, -64, 1, 65, -1, 63, 127, 2 ** 32, 2 ** 32 + 64, 2 ** 53 - 1, 0.5, 64.5, 1e21];
        let seed = 12345;
        const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) >>> 8) % n;
        for (let step = 0; step < 20_000; step++) {
            // Phases of mostly adding and mostly removing, so the table grows past its first size and shrinks back.
            const adding = Math.floor(step / 2_000) % 2 === 0 ? random(4) > 0 : random(4) === 0;
            const id = random(3) === 0 ? ids[random(ids.length)]! : random(3000);
            if (adding) {
                table.set(id, step);
                model.set(id, step);
            } else {
                assert.equal(table.delete(id), model.delete(id), `delete ${id} at step ${step}`);
            }
            if (step % 97 === 0) {
                assert.equal(table.size, model.size);
                for (const probe of [...ids, random(3000)]) {
                    assert.equal(table.get(probe), model.get(probe), `get ${probe} at step ${step}`);
                }
            }
        }
        assert.deepEqual(table.values().sort((a, b) => a - b), [...model.values()].sort((a, b) => a - b));
    });
});
