import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResultCache } from '../../../../extension/tasks/resultCache';

describe('kept results', () => {
    it('keeps the most recently used entries, up to its bound', () => {
        const cache = new ResultCache<string>(2);
        cache.set('a', 'A');
        cache.set('b', 'B');
        assert.equal(cache.get('a'), 'A', 'a is now the most recently used');
        cache.set('c', 'C');
        assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c')], ['A', undefined, 'C']);
        assert.equal(cache.size, 2);
    });

    it('does not keep a result larger than its size bound', () => {
        const cache = new ResultCache<string>(10, 5, value => value.length);
        cache.set('small', '12345');
        cache.set('big', '123456');
        assert.equal(cache.get('small'), '12345');
        assert.equal(cache.get('big'), undefined);
    });
});
