// Run Tool takes a preset only in its own shape: the view's title bar hands it the focused row.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runToolPreset } from '../../../extension/runToolPreset.js';

describe('Run Tool preset', () => {
    it('takes { name, args?, mode? }', () => {
        assert.deepEqual(runToolPreset({ name: 'greet' }), { name: 'greet', args: undefined, mode: undefined });
        assert.deepEqual(runToolPreset({ name: 'slow_compute', args: { seconds: 1 }, mode: 'task' }), { name: 'slow_compute', args: { seconds: 1 }, mode: 'task' });
    });

    it('ignores a tree row, which the title bar passes when a row is focused', () => {
        const row = { taskId: 't1', status: 'working', createdAt: '', lastUpdatedAt: '', ttl: null, toolName: 'slow_compute', args: {} };
        assert.equal(runToolPreset(row), undefined);
        // Even one that happens to carry a name: it is not a preset.
        assert.equal(runToolPreset({ ...row, name: 'slow_compute' }), undefined);
    });

    it('ignores anything else', () => {
        for (const value of [undefined, null, 'greet', 3, [], { name: '' }, { name: 3 }, { name: 'x', args: [] }, { name: 'x', args: 'a' }, { name: 'x', mode: 'later' }]) {
            assert.equal(runToolPreset(value), undefined, JSON.stringify(value));
        }
    });
});
