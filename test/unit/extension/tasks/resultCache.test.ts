import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ResultCache } from '../../../../extension/tasks/resultCache';

const folders: string[] = [];
after(() => folders.forEach(dir => rmSync(dir, { recursive: true, force: true })));

/** A fresh storage folder, as the workspace's storage would be. */
function storage(): string {
    const dir = mkdtempSync(join(tmpdir(), 'kept-results-'));
    folders.push(dir);
    return join(dir, 'results');
}

describe('kept results', () => {
    it('keeps the most recently used entries, up to its bound', () => {
        const cache = new ResultCache<string>({ maxEntries: 2 });
        cache.set('a', 'A');
        cache.set('b', 'B');
        assert.equal(cache.get('a'), 'A', 'a is now the most recently used');
        cache.set('c', 'C');
        assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c')], ['A', undefined, 'C']);
        assert.equal(cache.size, 2);
    });

    it('does not keep a result larger than its size bound', () => {
        // '"12345"' is 7 bytes of JSON.
        const cache = new ResultCache<string>({ maxBytes: 7 });
        cache.set('small', '12345');
        cache.set('big', '123456');
        assert.equal(cache.get('small'), '12345');
        assert.equal(cache.get('big'), undefined);
    });

    it('keeps all results together under the total bound, dropping the least recently used', () => {
        const cache = new ResultCache<string>({ maxTotalBytes: 25 });
        cache.set('a', 'x'.repeat(8)); // 10 bytes of JSON
        cache.set('b', 'y'.repeat(8));
        cache.get('a');
        cache.set('c', 'z'.repeat(8));
        assert.deepEqual([cache.has('a'), cache.has('b'), cache.has('c')], [true, false, true]);
        assert.equal(cache.totalBytes, 20);
    });

    it("drops a result once its task's TTL has passed, and never keeps one already past it", () => {
        let now = 1000;
        const cache = new ResultCache<string>({ now: () => now });
        cache.set('a', 'A', { expiresAt: 2000 });
        cache.set('late', 'L', { expiresAt: 1000 });
        assert.equal(cache.has('late'), false);
        assert.equal(cache.get('a'), 'A');
        now = 2000;
        assert.equal(cache.get('a'), undefined);
        assert.equal(cache.size, 0);
    });

    it('survives a reload: a new cache on the same folder lists the tasks and reads their results', () => {
        const dir = storage();
        const first = new ResultCache<{ text: string }, { toolName: string }>({ dir });
        first.set('t1', { text: 'one' }, { view: { toolName: 'slow_compute' }, expiresAt: Date.now() + 60_000 });
        first.set('t2', { text: 'two' });
        const reloaded = new ResultCache<{ text: string }, { toolName: string }>({ dir });
        assert.deepEqual(reloaded.kept(), [{ taskId: 't1', view: { toolName: 'slow_compute' } }, { taskId: 't2', view: undefined }]);
        assert.deepEqual(reloaded.get('t1'), { text: 'one' });
        assert.equal(reloaded.totalBytes, first.totalBytes);
    });

    it('a reloaded window drops what expired meanwhile, and forgetting removes the files', () => {
        const dir = storage();
        let now = 1000;
        const first = new ResultCache<string>({ dir, now: () => now });
        first.set('short', 'S', { expiresAt: 2000 });
        first.set('long', 'L', { expiresAt: 9000 });
        first.set('cleared', 'C');
        first.forget(['cleared']);
        assert.equal(readdirSync(dir).filter(file => file !== 'index.json').length, 2, 'one file per kept result');
        now = 5000;
        const reloaded = new ResultCache<string>({ dir, now: () => now });
        assert.deepEqual(reloaded.kept().map(kept => kept.taskId), ['long']);
        assert.equal(readdirSync(dir).filter(file => file !== 'index.json').length, 1, "the expired result's file is gone");
        assert.equal(reloaded.get('cleared'), undefined);
    });

    it('applies its bounds to what an earlier window left, and reads a damaged index as empty', () => {
        const dir = storage();
        const first = new ResultCache<string>({ dir });
        for (const id of ['a', 'b', 'c']) {
            first.set(id, id.toUpperCase());
        }
        assert.deepEqual(new ResultCache<string>({ dir, maxEntries: 2 }).kept().map(kept => kept.taskId), ['b', 'c']);
        writeFileSync(join(dir, 'index.json'), '{ not json');
        assert.equal(new ResultCache<string>({ dir }).size, 0);
    });

    it('keeps results in memory when its folder cannot be written, and says so', () => {
        const blocker = storage();
        writeFileSync(blocker, 'a file where the folder should be');
        const problems: string[] = [];
        const cache = new ResultCache<string>({ dir: blocker, onError: message => problems.push(message) });
        cache.set('a', 'A');
        assert.equal(cache.get('a'), 'A');
        assert.equal(problems.length, 1);
        assert.match(problems[0]!, /keeping them in memory/);
    });
});
