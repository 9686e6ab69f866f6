import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LocalTasks, LocalWork } from '../../server/src/tasks/localWork.js';

describe("LocalWork (a running task's stop, signal and sleep)", () => {
    it('sleep resolves after its time when nothing stops the work', async () => {
        const work = new LocalWork('c', 0);
        const started = performance.now();
        await work.sleep(30);
        assert.ok(performance.now() - started >= 25);
        assert.equal(work.stopped, false);
    });

    it('stop rejects a pending sleep at once with the reason, and a second concurrent one too', async () => {
        const work = new LocalWork('c', 0);
        const first = work.sleep(60_000);
        const second = work.sleep(60_000);
        const reason = new Error('Task cancelled: by the test');
        const started = performance.now();
        work.stop(reason);
        await assert.rejects(first, err => err === reason);
        await assert.rejects(second, err => err === reason);
        assert.ok(performance.now() - started < 1000);
    });

    it('after a stop, sleep rejects and the signal reads as aborted with the first reason', async () => {
        const work = new LocalWork('c', 0);
        const reason = new Error('first');
        work.stop(reason);
        work.stop(new Error('second'));
        await assert.rejects(work.sleep(10), err => err === reason);
        assert.equal(work.signal.aborted, true);
        assert.equal(work.signal.reason, reason);
    });

    it('a signal taken before the stop is aborted by it, and release runs once', () => {
        const work = new LocalWork('c', 0);
        let released = 0;
        work.release = () => released++;
        const signal = work.signal;
        assert.equal(signal.aborted, false);
        work.stop(new Error('x'));
        work.stop(new Error('y'));
        assert.equal(signal.aborted, true);
        assert.equal(released, 1);
    });
});

describe('LocalTasks (children index)', () => {
    it('finds the children running here by parent, and forgets removed ones', () => {
        const tasks = new LocalTasks();
        tasks.add('p', new LocalWork('c', 0));
        tasks.add('a', new LocalWork('c', 1, 'p'));
        tasks.add('b', new LocalWork('c', 1, 'p'));
        tasks.add('x', new LocalWork('c', 1, 'other'));
        assert.deepEqual(tasks.childrenHere('p').sort(), ['a', 'b']);
        tasks.remove('a');
        assert.deepEqual(tasks.childrenHere('p'), ['b']);
        tasks.remove('b');
        assert.deepEqual(tasks.childrenHere('p'), []);
        assert.equal(tasks.size, 2);
        assert.equal(tasks.remove('a'), undefined);
    });
});
