/**
 * TaskWaiters on its own: a waiter released by its abort stays released when its re-check answers
 * late, and does not take the next waiter of the same task with it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskRecord } from '../../../../server/src/tasks/types.js';
import { TaskWaiters } from '../../../../server/src/tasks/waiters.js';
import { ManualClock } from '../../../support/manualClock.js';
import { promisesDrained } from '../../../support/wait.js';

const RECORD = { taskId: 't1', status: 'working', lastUpdatedAt: '2026-12-01T00:00:00.000Z' } as TaskRecord;
const CHANGED = { ...RECORD, lastUpdatedAt: '2026-12-01T00:00:01.000Z' } as TaskRecord;

/** A store read whose answers the test gives, one per read, in order. */
function heldReads() {
    const answers: ((record: TaskRecord | undefined) => void)[] = [];
    const read = () => new Promise<TaskRecord | undefined>(resolve => answers.push(resolve));
    return { read, answers };
}

describe('TaskWaiters', () => {
    it("a waiter aborted before its re-check answers is released once: the late answer neither undoes it again nor drops the next waiter's place", async () => {
        const { read, answers } = heldReads();
        const waiters = new TaskWaiters(read);
        let undone = 0;
        const abort = new AbortController();
        const first = waiters.next(RECORD, abort.signal, () => () => undone++);
        abort.abort(new Error('the client went away'));
        await assert.rejects(first, /the client went away/);
        assert.equal(undone, 1);

        let woken = false;
        const second = waiters.next(RECORD).then(() => (woken = true));
        // The first waiter's re-check answers now, with a change: too late to matter.
        answers[0]!(CHANGED);
        await promisesDrained();
        assert.equal(undone, 1, 'its undo ran once');
        assert.deepEqual(waiters.taskIds, ['t1'], 'the second waiter is still parked');
        answers[1]!(RECORD);
        await promisesDrained();
        assert.equal(woken, false);
        waiters.wake('t1');
        await second;
        assert.equal(woken, true);
        assert.deepEqual(waiters.taskIds, []);
    });

    it('untilStoreBack wakes on a wake or after its retry time, reads nothing, and leaves no timer', async () => {
        const { read, answers } = heldReads();
        const waiters = new TaskWaiters(read);
        const clock = new ManualClock();
        let woken = 0;
        void waiters.untilStoreBack('t1', clock, 1000, undefined).then(() => woken++);
        await clock.tick(999);
        assert.equal(woken, 0);
        await clock.tick(1);
        assert.equal(woken, 1, 'the retry time woke it');

        const back = waiters.untilStoreBack('t1', clock, 1000, undefined).then(() => woken++);
        waiters.wake('t1');
        await back;
        assert.equal(woken, 2, 'a wake (the store is back) woke it');
        await clock.tick(5000);
        assert.equal(woken, 2, 'its timer went with it');
        assert.equal(answers.length, 0, 'nothing was read');
        assert.deepEqual(waiters.taskIds, []);
    });
});
