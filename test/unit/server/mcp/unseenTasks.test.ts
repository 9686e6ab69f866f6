/**
 * A task's requests on a pipe wait until its client has named the task (unseenTasks.ts): they go
 * on the first message naming it, after the grace when none comes, and not at all once withdrawn.
 * Virtual clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UNSEEN_GRACE_MS, UnseenTasks } from '../../../../server/src/mcp/unseenTasks.js';
import { ManualClock } from '../../../support/manualClock.js';
import { promisesDrained, waitUntil } from '../../../support/wait.js';

function setup() {
    const clock = new ManualClock();
    return { clock, unseen: new UnseenTasks(clock) };
}

/** Whether the promise has settled, and how. */
function track(promise: Promise<void> | undefined): { state: string } {
    const seen = { state: promise ? 'waiting' : 'at once' };
    promise?.then(
        () => (seen.state = 'released'),
        (err: Error) => (seen.state = `rejected: ${err.message}`),
    );
    return seen;
}

describe('requests of a task its client has not seen', () => {
    it('wait until a message names the task, then go; later ones go at once', async () => {
        const { unseen } = setup();
        unseen.introduce('t1');
        const first = track(unseen.whenSeen('t1', new AbortController().signal));
        unseen.seen({ taskId: 'other' });
        unseen.seen(undefined);
        await promisesDrained();
        assert.equal(first.state, 'waiting', 'a message naming another task, or none, releases nothing');
        unseen.seen({ taskId: 't1' });
        await waitUntil(() => first.state !== 'waiting', 'the request to go');
        assert.equal(first.state, 'released');
        assert.equal(unseen.whenSeen('t1', new AbortController().signal), undefined);
        assert.equal(unseen.whenSeen('never-introduced', new AbortController().signal), undefined);
    });

    it(`go after ${UNSEEN_GRACE_MS} ms when the client never names the task`, async () => {
        const { clock, unseen } = setup();
        unseen.introduce('t1');
        await clock.tick(500);
        const asked = track(unseen.whenSeen('t1', new AbortController().signal));
        await clock.tick(UNSEEN_GRACE_MS - 501);
        assert.equal(asked.state, 'waiting');
        await clock.tick(1);
        assert.equal(asked.state, 'released');
        assert.equal(clock.pending, 0, 'no timer left');
    });

    it('are rejected with the reason when withdrawn while waiting, and released on dispose', async () => {
        const { clock, unseen } = setup();
        unseen.introduce('t1');
        const withdrawn = new AbortController();
        const cancelled = track(unseen.whenSeen('t1', withdrawn.signal));
        const kept = track(unseen.whenSeen('t1', new AbortController().signal));
        withdrawn.abort(new Error('task cancelled'));
        await waitUntil(() => cancelled.state !== 'waiting', 'the withdrawn request to end');
        await promisesDrained();
        assert.equal(cancelled.state, 'rejected: task cancelled');
        assert.equal(kept.state, 'waiting');
        unseen.dispose();
        await waitUntil(() => kept.state !== 'waiting', 'the kept request to end');
        assert.equal(kept.state, 'released');
        assert.equal(clock.pending, 0);
    });

    it('forget tasks that asked nothing once the grace is over', async () => {
        const { clock, unseen } = setup();
        unseen.introduce('old');
        await clock.tick(UNSEEN_GRACE_MS);
        unseen.introduce('new');
        assert.equal(unseen.whenSeen('old', new AbortController().signal), undefined);
        assert.ok(unseen.whenSeen('new', new AbortController().signal));
        unseen.dispose();
    });

    it('forget, oldest first, thousands of tasks never named, keeping those named later or still waited on', async () => {
        const { clock, unseen } = setup();
        const open = (taskId: string) => unseen.whenSeen(taskId, new AbortController().signal) !== undefined;
        // Enough to pass the creation-order queue's compaction (1024 read entries) more than once.
        for (let i = 0; i < 3000; i++) {
            unseen.introduce(`old-${i}`);
        }
        unseen.seen({ taskId: 'old-5' });
        assert.equal(unseen.size, 2999);
        const asked = track(unseen.whenSeen('old-7', new AbortController().signal));
        await clock.tick(UNSEEN_GRACE_MS / 2);
        for (let i = 0; i < 3000; i++) {
            unseen.introduce(`mid-${i}`);
        }
        await clock.tick(UNSEEN_GRACE_MS / 2 - 1);
        assert.equal(asked.state, 'waiting');
        assert.ok(open('old-2999') && open('mid-0'), 'nothing forgotten before the grace is over');
        await clock.tick(1);
        assert.equal(asked.state, 'released', 'the waited-on task went when its grace ended');
        unseen.introduce('new');
        assert.equal(unseen.size, 3001, 'the old tasks are forgotten');
        assert.ok(open('mid-0') && open('mid-2999') && open('new'), 'the younger ones are kept');
        await clock.tick(UNSEEN_GRACE_MS / 2);
        unseen.introduce('newer');
        assert.equal(unseen.size, 2, 'then the next ones, after the queue dropped its read part');
        assert.ok(open('new') && open('newer'));
        unseen.dispose();
    });
});
