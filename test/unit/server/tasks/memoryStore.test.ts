/** What only the in-memory store does: its own timers delete tasks at their ttl. The shared contract is in storeContract.test.ts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RpcError } from '../../../../server/src/rpc/errors.js';
import { MemoryTaskStore } from '../../../../server/src/tasks/memoryStore.js';
import type { TaskEvent } from '../../../../server/src/tasks/types.js';
import { ManualClock } from '../../../support/manualClock.js';
import { done, newTask } from '../../../support/taskStores.js';

describe('MemoryTaskStore (virtual clock)', () => {
    it("deletes a task when its ttl runs out, emits 'deleted' and frees its live slot", async () => {
        const clock = new ManualClock();
        const store = new MemoryTaskStore({ clock });
        const events: TaskEvent[] = [];
        const subscription = store.onEvent(event => events.push(event));
        const task = await store.create(newTask('a', { ttl: 30 }), 1);
        await assert.rejects(store.create(newTask('a'), 1), RpcError);
        assert.deepEqual(
            events.map(e => e.type),
            ['status'],
        );
        await clock.tick(29);
        assert.equal((await store.get(task.taskId))?.status, 'working', 'still there 1 ms before its ttl');
        await clock.tick(1);
        assert.equal(await store.get(task.taskId), undefined);
        assert.equal(await store.getOutcome(task.taskId), undefined);
        assert.deepEqual(events[1], { type: 'deleted', taskId: task.taskId, clientKey: 'a' });
        assert.deepEqual((await store.list({ clientKey: 'a', limit: 10 })).tasks, []);
        assert.equal(store.size, 0);
        const next = await store.create(newTask('a'), 1);
        assert.equal(events.length, 3);
        subscription.dispose();
        await store.finish(next.taskId, 'completed', done);
        assert.equal(events.length, 3, 'no events after dispose');
        await store.close();
        assert.equal(clock.pending, 0, 'close clears the expiry timer');
    });

    it('restarts retention when a task finishes', async () => {
        const clock = new ManualClock();
        const store = new MemoryTaskStore({ clock });
        const task = await store.create(newTask('a', { ttl: 100 }), 10);
        await clock.tick(60);
        const finished = await store.finish(task.taskId, 'completed', done);
        assert.equal(finished?.lastUpdatedAt, new Date(clock.now()).toISOString(), 'timestamps come from the clock');
        await clock.tick(99);
        assert.equal((await store.get(task.taskId))?.status, 'completed', 'still there 159 ms after creation, 99 ms after finishing');
        await clock.tick(1);
        assert.equal(await store.get(task.taskId), undefined);
        await store.close();
    });

    it('expires many tasks at their deadlines, in deadline order, while finishes move their deadlines', async () => {
        const clock = new ManualClock();
        const store = new MemoryTaskStore({ clock });
        const expected = new Map<string, number>();
        const deleted: { taskId: string; at: number }[] = [];
        store.onEvent(event => {
            if (event.type === 'deleted') {
                deleted.push({ taskId: event.taskId, at: clock.now() });
            }
        });
        const ids: string[] = [];
        for (let i = 0; i < 40; i++) {
            const ttl = 60 + ((i * 37) % 40) * 4;
            const task = await store.create(newTask('a', { ttl }), 100);
            expected.set(task.taskId, clock.now() + ttl);
            ids.push(task.taskId);
            await clock.tick(1);
        }
        for (let i = 0; i < ids.length; i += 3) {
            const task = (await store.get(ids[i]!))!;
            await store.finish(task.taskId, 'completed', done);
            expected.set(task.taskId, clock.now() + task.ttl);
        }
        await clock.tick(1000);
        assert.equal(deleted.length, ids.length, 'every task expired once');
        for (const { taskId, at } of deleted) {
            assert.equal(at, expected.get(taskId), `${taskId} expired exactly at its deadline`);
        }
        const order = deleted.map(d => d.at);
        assert.deepEqual(
            order,
            [...order].sort((a, b) => a - b),
            'in deadline order',
        );
        assert.equal(store.size, 0);
        await store.close();
    });

    it('runs on the real clock by default, which node:test mock timers drive', async t => {
        t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
        const store = new MemoryTaskStore();
        const task = await store.create(newTask('a', { ttl: 5000 }), 10);
        assert.equal(task.createdAt, new Date(Date.now()).toISOString());
        t.mock.timers.tick(4999);
        assert.ok(await store.get(task.taskId));
        t.mock.timers.tick(1);
        assert.equal(await store.get(task.taskId), undefined);
        await store.close();
    });
});
