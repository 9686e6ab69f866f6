/**
 * What only the Redis store does: key expiry, events between instances, worker leases. The
 * contract both stores keep is in storeContract.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RpcError } from '../../server/src/rpc/errors.js';
import type { TaskEvent } from '../../server/src/tasks/types.js';
import { waitUntil } from './helpers.js';
import { done, newTask, redisStoreSkip, RedisStores, testRedis, type TestRedis } from './taskStores.js';

describe('RedisTaskStore', { skip: redisStoreSkip() }, () => {
    let redis: TestRedis;
    let stores: RedisStores;

    before(async () => {
        redis = await testRedis();
        stores = new RedisStores(redis.url);
    });
    after(async () => {
        await stores.close();
        await redis.stop();
    });

    it("expires a task through Redis key expiry: gone everywhere, 'deleted' published, indexes cleaned, live slot freed", async () => {
        const store = await stores.open();
        const other = await stores.open(store.prefix);
        const events: TaskEvent[] = [];
        const subscription = other.onEvent(event => events.push(event));
        const task = await store.create(newTask('a', { ttl: 300, parentTaskId: 'P' }), 1);
        await assert.rejects(store.create(newTask('a'), 1), RpcError);
        await waitUntil(() => events.length === 1, 2000, 'the created event on the other instance');
        assert.deepEqual(events[0], { type: 'status', task, created: true });
        await new Promise(r => setTimeout(r, 350));
        assert.equal(await other.get(task.taskId), undefined, 'gone at its ttl, before any reaper ran');
        assert.equal(await other.getOutcome(task.taskId), undefined);
        assert.deepEqual((await other.list({ clientKey: 'a', limit: 10 })).tasks, []);
        const next = await store.create(newTask('a'), 1);
        await waitUntil(() => events.some(e => e.type === 'deleted'), 3000, "the 'deleted' event");
        assert.deepEqual(
            events.find(e => e.type === 'deleted'),
            { type: 'deleted', taskId: task.taskId, clientKey: 'a' },
        );
        const keys = (await redis.cli('--scan', '--pattern', `${store.prefix}*`)).split('\n').sort();
        assert.ok(!keys.some(k => k.includes(task.taskId)) && !keys.includes(`${store.prefix}p:P`), `no trace of the expired task: ${keys.join(' ')}`);
        assert.equal(await redis.cli('ZSCORE', `${store.prefix}all`, task.taskId), '');
        subscription.dispose();
        await store.finish(next.taskId, 'completed', done);
    });

    it('restarts retention when a task finishes', async () => {
        const store = await stores.open();
        const task = await store.create(newTask('a', { ttl: 1500 }), 10);
        await new Promise(r => setTimeout(r, 1000));
        await store.finish(task.taskId, 'completed', done);
        const finishedAt = Date.now();
        const pttl = Number(await redis.cli('PTTL', `${store.prefix}t:${task.taskId}`));
        assert.ok(pttl > 1000 && pttl <= 1500, `PTTL ${pttl} right after finishing`);
        await new Promise(r => setTimeout(r, 800));
        assert.equal((await store.get(task.taskId))?.status, 'completed', 'still there past its first ttl: retention restarted at the finish');
        await waitUntil(async () => (await store.get(task.taskId)) === undefined, 3000, 'expiry');
        assert.ok(Date.now() - finishedAt >= 1400, `gone ${Date.now() - finishedAt} ms after finishing`);
    });

    it('delivers status and progress events of one instance to another, exactly once each', async () => {
        const store = await stores.open();
        const other = await stores.open(store.prefix);
        const seenHere: TaskEvent[] = [];
        const seenThere: TaskEvent[] = [];
        store.onEvent(e => seenHere.push(e));
        other.onEvent(e => seenThere.push(e));
        const task = await store.create(newTask('a', { progressToken: 'tok' }), 10);
        store.publishProgress(task, { progress: 1, total: 2, message: 'half' });
        await store.setStatus(task.taskId, 'input_required', 'Waiting');
        await other.finish(task.taskId, 'completed', done);
        const summary = (events: TaskEvent[]) => events.map(e => (e.type === 'status' ? `${e.task.status}${e.created ? '*' : ''}` : e.type === 'progress' ? `p${e.update.progress}:${String(e.progressToken)}` : e.type));
        await waitUntil(() => seenHere.length === 4 && seenThere.length === 4, 2000, 'four events on each side');
        assert.deepEqual(summary(seenHere), ['working*', 'p1:tok', 'input_required', 'completed']);
        assert.deepEqual(summary(seenThere), ['working*', 'p1:tok', 'input_required', 'completed']);
        await new Promise(r => setTimeout(r, 100));
        assert.equal(seenHere.length + seenThere.length, 8, 'no duplicates');
    });

    it("publishes a task's progress token once, not on every tick, and other instances still deliver it", async () => {
        const store = await stores.open();
        const other = await stores.open(store.prefix);
        const token = 't'.repeat(256);
        const seen: TaskEvent[] = [];
        other.onEvent(e => e.type === 'progress' && seen.push(e));
        const { createClient } = await import('../../server/src/tasks/redisClient.js');
        const tap = createClient({ url: redis.url });
        await tap.connect();
        const published: string[] = [];
        await tap.subscribe(`${store.prefix}events`, message => published.push(message));
        const task = await store.create(newTask('a', { progressToken: token }), 10);
        for (let tick = 1; tick <= 5; tick++) {
            store.publishProgress(task, { progress: tick, total: 5 });
        }
        await waitUntil(() => seen.length === 5, 2000, 'five progress events on the other instance');
        assert.deepEqual(
            seen.map(e => (e.type === 'progress' ? [e.update.progress, e.progressToken] : [])),
            [1, 2, 3, 4, 5].map(tick => [tick, token]),
        );
        const progress = published.filter(m => m.includes('"t":"p"'));
        assert.equal(progress.length, 5);
        assert.equal(progress.filter(m => m.includes(token)).length, 1, 'the token crossed the wire once');
        await tap.close();
    });

    it('fails the live tasks of a worker whose lease lapsed, naming it', async () => {
        const store = await stores.open(undefined, 'doomed-worker', 300);
        const survivor = await stores.open(store.prefix, 'survivor', 300);
        const events: TaskEvent[] = [];
        survivor.onEvent(e => events.push(e));
        const running = await store.create(newTask('a'), 10);
        const finished = await store.create(newTask('a'), 10);
        await store.finish(finished.taskId, 'completed', done);
        // A crash: the heartbeat stops without the clean retire of close().
        (store as unknown as { stopTimers(): void }).stopTimers();
        await waitUntil(async () => (await survivor.get(running.taskId))?.status === 'failed', 3000, 'the lost task to fail');
        const failed = await survivor.get(running.taskId);
        assert.match(failed!.statusMessage!, /Worker doomed-worker stopped responding \(no heartbeat within its 300 ms lease\)/);
        assert.match(JSON.stringify(await survivor.getOutcome(running.taskId)), /doomed-worker/);
        assert.equal((await survivor.get(finished.taskId))?.status, 'completed', 'finished results survive');
        assert.ok(events.some(e => e.type === 'status' && e.task.taskId === running.taskId && e.task.status === 'failed'));
        assert.equal((await survivor.get((await survivor.create(newTask('s'), 10)).taskId))?.status, 'working', "the survivor's own tasks are untouched");
        await new Promise(r => setTimeout(r, 500));
        assert.equal(await redis.cli('HEXISTS', `${store.prefix}workers`, 'survivor'), '1');
        assert.equal(await redis.cli('HEXISTS', `${store.prefix}workers`, 'doomed-worker'), '0');
    });
});
