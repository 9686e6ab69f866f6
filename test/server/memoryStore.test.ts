/** What only the in-memory store does: its own timers delete tasks at their ttl. The shared contract is in storeContract.test.ts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RpcError } from '../../server/src/rpc/errors.js';
import { MemoryTaskStore } from '../../server/src/tasks/memoryStore.js';
import type { TaskEvent } from '../../server/src/tasks/types.js';
import { done, newTask } from './taskStores.js';

describe('MemoryTaskStore', () => {
    it("deletes a task when its ttl runs out, emits 'deleted' and frees its live slot", async () => {
        const store = new MemoryTaskStore();
        const events: TaskEvent[] = [];
        const subscription = store.onEvent(event => events.push(event));
        const task = await store.create(newTask('a', { ttl: 30 }), 1);
        await assert.rejects(store.create(newTask('a'), 1), RpcError);
        assert.deepEqual(
            events.map(e => e.type),
            ['status'],
        );
        await new Promise(r => setTimeout(r, 80));
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
    });

    it('restarts retention when a task finishes', async () => {
        const store = new MemoryTaskStore();
        const task = await store.create(newTask('a', { ttl: 100 }), 10);
        await new Promise(r => setTimeout(r, 60));
        await store.finish(task.taskId, 'completed', done);
        await new Promise(r => setTimeout(r, 60));
        assert.equal((await store.get(task.taskId))?.status, 'completed', 'still there 120 ms after creation, 60 ms after finishing');
        await new Promise(r => setTimeout(r, 80));
        assert.equal(await store.get(task.taskId), undefined);
        await store.close();
    });
    it('expires many tasks in deadline order while finishes move their deadlines', async () => {
        const store = new MemoryTaskStore();
        const expected = new Map<string, number>();
        const deleted: { taskId: string; at: number }[] = [];
        const sub = store.onEvent(event => {
            if (event.type === 'deleted') {
                deleted.push({ taskId: event.taskId, at: performance.now() });
            }
        });
        const ids: string[] = [];
        for (let i = 0; i < 40; i++) {
            const ttl = 60 + ((i * 37) % 40) * 4;
            const task = await store.create(newTask('a', { ttl }), 100);
            expected.set(task.taskId, performance.now() + ttl);
            ids.push(task.taskId);
        }
        await new Promise(r => setTimeout(r, 30));
        for (let i = 0; i < ids.length; i += 3) {
            const task = (await store.get(ids[i]!))!;
            await store.finish(task.taskId, 'completed', done);
            expected.set(task.taskId, performance.now() + task.ttl);
        }
        await new Promise(r => setTimeout(r, 450));
        sub.dispose();
        assert.equal(deleted.length, ids.length, 'every task expired once');
        for (const { taskId, at } of deleted) {
            assert.ok(at >= expected.get(taskId)! - 2, `${taskId} did not expire before its deadline`);
        }
        const order = deleted.map(d => expected.get(d.taskId)!);
        // Deadlines closer than a timer's granularity may swap; anything further apart keeps its order.
        order.forEach((deadline, i) => assert.ok(i === 0 || deadline >= order[i - 1]! - 5, `expiry ${i} is in deadline order`));
        assert.equal(store.size, 0);
        await store.close();
    });
});
