/**
 * A tasks/result that waits while a shared store becomes unreachable keeps waiting, and answers
 * once the store is back and the task ends. The real Redis outage is in e2e/redis.test.ts; here the
 * outage comes exactly when the test says (the store answers -32001 like RedisTaskStore does), so
 * the waiter is woken during it every time, on a virtual clock.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { createLogger } from '../../../../server/src/util/log.js';
import { ErrorCodes, RpcError } from '../../../../server/src/rpc/errors.js';
import { ClientHub } from '../../../../server/src/tasks/hub.js';
import { MemoryTaskStore } from '../../../../server/src/tasks/memoryStore.js';
import { TaskRuntime } from '../../../../server/src/tasks/runtime.js';
import type { Disposable, TaskEvent, TaskRecord } from '../../../../server/src/tasks/types.js';
import { ToolRegistry } from '../../../../server/src/tools/registry.js';
import { textResult } from '../../../../server/src/tools/types.js';
import { ManualClock } from '../../../support/manualClock.js';
import { promisesDrained } from '../../../support/wait.js';
import { nap } from '../../../support/napTool.js';

/** The in-memory store with a switch that makes reads answer as an unreachable Redis does, and events a test sends. */
class OutageStore extends MemoryTaskStore {
    down = false;
    reads = 0;
    private readonly extra = new EventEmitter();

    override get(taskId: string): Promise<TaskRecord | undefined> {
        this.reads++;
        if (this.down) {
            return Promise.reject(new RpcError(ErrorCodes.StoreUnavailable, 'Task store unavailable: cannot reach Redis (The client is offline); try again shortly'));
        }
        return super.get(taskId);
    }

    override onEvent(listener: (event: TaskEvent) => void): Disposable {
        const own = super.onEvent(listener);
        this.extra.on('event', listener);
        return { dispose: () => (own.dispose(), this.extra.off('event', listener)) };
    }

    /** An event as the shared store would deliver it (a resync once both connections are back). */
    announce(event: TaskEvent): void {
        this.extra.emit('event', event);
    }
}

const LIMITS = { defaultTtlMs: 3_600_000, maxTtlMs: 86_400_000, maxTasksPerClient: 100, pollIntervalMs: 1000, maxSubtaskDepth: 4, maxChildrenPerTask: 16 };
const CLIENT = { clientKey: 'c', isOwner: false };

function setup() {
    const clock = new ManualClock();
    const store = new OutageStore({ clock });
    const runtime = new TaskRuntime(store, new ToolRegistry([nap]), new ClientHub(), LIMITS, createLogger('error', () => undefined), 'w1', clock);
    return { clock, store, runtime };
}

/** The promise's state now, without waiting for it. */
async function stateOf(promise: Promise<unknown>): Promise<'pending' | 'resolved' | 'rejected'> {
    let state: 'pending' | 'resolved' | 'rejected' = 'pending';
    promise.then(
        () => (state = 'resolved'),
        () => (state = 'rejected'),
    );
    await promisesDrained();
    return state;
}

describe('tasks/result across a store outage (virtual clock)', () => {
    it('keeps waiting when woken while the store is down, reads again each second until it is back, then answers the outcome', async () => {
        const { clock, store, runtime } = setup();
        const task = await runtime.createTask(CLIENT, runtime.tools.get('nap')!, { ms: 10_000 }, {});
        const waiting = runtime.result(CLIENT, task.taskId);
        // Parked once its first read (an in-memory store's promise) has answered.
        await promisesDrained();

        store.down = true;
        // Woken during the outage (an event that was on its way): the re-read fails.
        store.announce({ type: 'status', task });
        assert.equal(await stateOf(waiting), 'pending', 'a failed re-read while waiting does not end the wait');
        const readsDown = store.reads;
        await clock.tick(1000);
        assert.ok(store.reads > readsDown, 'it read again after a second');
        assert.equal(await stateOf(waiting), 'pending', 'still down: still waiting');

        store.down = false;
        store.announce({ type: 'resync' });
        assert.equal(await stateOf(waiting), 'pending', 'back, and the task still runs: waiting on it as before');
        const readsUp = store.reads;
        await clock.tick(5000);
        assert.equal(store.reads, readsUp, 'no reads while the store is up and nothing changes');

        await clock.tick(5000);
        const { task: ended, outcome } = await waiting;
        assert.equal(ended.status, 'completed');
        assert.deepEqual(outcome, { result: textResult('slept 10000') });
    });

    it('answers -32001 at once when the store is down as the caller asks, and a cancelled wait during an outage ends without a timer left', async () => {
        const { clock, store, runtime } = setup();
        const task = await runtime.createTask(CLIENT, runtime.tools.get('nap')!, { ms: 10_000 }, {});
        store.down = true;
        await assert.rejects(runtime.result(CLIENT, task.taskId), (err: RpcError) => err.code === ErrorCodes.StoreUnavailable);

        store.down = false;
        const abort = new AbortController();
        const waiting = runtime.result(CLIENT, task.taskId, abort.signal);
        await promisesDrained();
        store.down = true;
        store.announce({ type: 'resync' });
        assert.equal(await stateOf(waiting), 'pending');
        abort.abort(new Error('the client went away'));
        await assert.rejects(waiting, /the client went away/);
        const readsAfter = store.reads;
        await clock.tick(5000);
        assert.equal(store.reads, readsAfter, 'the outage retry timer went with the wait');
        store.down = false;
        await clock.tick(5000);
    });
});
