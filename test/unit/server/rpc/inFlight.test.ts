import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InFlight } from '../../../../server/src/rpc/inFlight.js';

// The table of requests in flight by id (a dictionary object instead of a Map, for the GC): it
// must keep the Map's meaning, above all that a number id and a string id are different requests.

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
});
