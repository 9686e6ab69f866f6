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
});
