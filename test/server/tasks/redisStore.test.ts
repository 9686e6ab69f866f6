/**
 * What only the Redis store does: key expiry, events between instances, worker leases. The
 * contract both stores keep is in storeContract.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RpcError } from '../../../server/src/rpc/errors.js';
import type { TaskEvent } from '../../../server/src/tasks/types.js';
import { waitUntil } from '../../support/wait.js';
import { done, newTask, redisStoreSkip, RedisStores, testRedis, type TestRedis } from '../../support/taskStores.js';

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
        await waitUntil(() => events.length === 1, 'the created event on the other instance');
        assert.deepEqual(events[0], { type: 'status', task, created: true });
        await waitUntil(async () => (await other.get(task.taskId)) === undefined, 'the task to expire at its ttl');
        assert.equal(await other.getOutcome(task.taskId), undefined);
        assert.deepEqual((await other.list({ clientKey: 'a', limit: 10 })).tasks, []);
        const next = await store.create(newTask('a'), 1);
        await waitUntil(() => events.some(e => e.type === 'deleted'), "the 'deleted' event");
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

    it('frees what an expired task held of its client\'s byte budget, on every instance, and leaves no budget keys behind', async () => {
        const store = await stores.open();
        const other = await stores.open(store.prefix);
        const budget = { maxTasks: Infinity, maxBytes: 1000 };
        const short = await store.create(newTask('a', { ttl: 300 }), 10, budget);
        await store.finish(short.taskId, 'completed', { result: { content: [{ type: 'text', text: 'x'.repeat(200) }] } });
        const kept = await other.create(newTask('a'), 10, budget);
        await assert.rejects(store.create(newTask('a'), 10, budget), RpcError, 'the finished task and its result still count');
        await waitUntil(async () => (await other.get(short.taskId)) === undefined, 'the short task to expire');
        await waitUntil(() => other.create(newTask('a'), 10, budget).then(
            () => true,
            () => other.reap().then(() => false),
        ), 'the reaper to free its bytes');
        assert.equal(await redis.cli('HEXISTS', `${store.prefix}sizes:a`, short.taskId), '0');
        assert.equal(await redis.cli('HEXISTS', `${store.prefix}sizes:a`, kept.taskId), '1');
        // A client whose last task is reaped leaves no counter behind.
        const lone = await store.create(newTask('lone', { ttl: 300 }), 10, budget);
        await store.finish(lone.taskId, 'completed', done);
        await waitUntil(async () => {
            await other.reap();
            return (await redis.cli('EXISTS', `${store.prefix}held:lone`, `${store.prefix}sizes:lone`)) === '0';
        }, 'the budget keys of a client with no tasks to go');
    });

    it("holds ended clients' tasks, from every instance, to one budget: oldest first, deleted everywhere, no keys left", async () => {
        const store = await stores.open();
        const other = await stores.open(store.prefix);
        const events: TaskEvent[] = [];
        const subscription = store.onEvent(event => events.push(event));
        const ids = async (): Promise<string[]> => (await other.list({ limit: 10 })).tasks.map(task => task.taskId);
        const a1 = await store.create(newTask('a'), 10);
        const a2 = await store.create(newTask('a'), 10);
        const b1 = await other.create(newTask('b'), 10);
        const b2 = await other.create(newTask('b'), 10);
        const three = { maxTasks: 3, maxBytes: Infinity };
        await store.orphan('a', three);
        await store.orphan('a', three);
        assert.deepEqual(await ids(), [a1, a2, b1, b2].map(task => task.taskId), 'within the budget, counted once however often');
        await other.orphan('b', three);
        assert.deepEqual(await ids(), [a2, b1, b2].map(task => task.taskId), 'the oldest goes first, whoever orphaned it');
        assert.equal(await store.get(a1.taskId), undefined);
        await waitUntil(() => events.some(e => e.type === 'deleted' && e.taskId === a1.taskId), "the 'deleted' event on the other instance");
        // The bytes count too: a budget smaller than one task empties the orphans.
        await store.orphan('b', { maxTasks: Infinity, maxBytes: 1 });
        assert.deepEqual(await ids(), []);
        assert.equal(await redis.cli('EXISTS', `${store.prefix}orphans`, `${store.prefix}orphan-sizes`, `${store.prefix}orphan-held`, `${store.prefix}held:a`, `${store.prefix}held:b`), '0');
        subscription.dispose();
    });

    it('restarts retention when a task finishes', async () => {
        const store = await stores.open();
        const task = await store.create(newTask('a', { ttl: 1500 }), 10);
        const pttl = async () => Number(await redis.cli('PTTL', `${store.prefix}t:${task.taskId}`));
        // Redis counts the key down; once over half of it has gone, finishing must set it back to the whole ttl.
        const before = await waitUntil(async () => {
            const left = await pttl();
            return left > 0 && left < 700 ? left : undefined;
        }, 'the retention to count down', { everyMs: 50 });
        await store.finish(task.taskId, 'completed', done);
        const after = await pttl();
        assert.ok(after > before && after <= 1500, `PTTL ${before} before finishing, ${after} right after: retention restarted at the finish`);
        assert.equal((await store.get(task.taskId))?.status, 'completed');
        await waitUntil(async () => (await store.get(task.taskId)) === undefined, 'expiry');
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
        await waitUntil(() => seenHere.length === 4 && seenThere.length === 4, 'four events on each side');
        assert.deepEqual(summary(seenHere), ['working*', 'p1:tok', 'input_required', 'completed']);
        assert.deepEqual(summary(seenThere), ['working*', 'p1:tok', 'input_required', 'completed']);
        // A marker event after them: Redis delivers one channel in order, so a duplicate would come before it.
        const marker = await store.create(newTask('m'), 10);
        const markerSeen = (events: TaskEvent[]) => events.some(e => e.type === 'status' && e.task.taskId === marker.taskId);
        await waitUntil(() => markerSeen(seenHere) && markerSeen(seenThere), 'the marker event on each side');
        assert.equal(seenHere.length + seenThere.length, 10, 'no duplicates');
    });

    it("publishes a task's progress token once, not on every tick, and other instances still deliver it", async () => {
        const store = await stores.open();
        const other = await stores.open(store.prefix);
        const token = 't'.repeat(256);
        const seen: TaskEvent[] = [];
        other.onEvent(e => e.type === 'progress' && seen.push(e));
        const { createClient } = await import('../../../server/src/tasks/redisClient.js');
        const tap = createClient({ url: redis.url });
        await tap.connect();
        const published: string[] = [];
        await tap.subscribe(`${store.prefix}events`, message => published.push(message));
        const task = await store.create(newTask('a', { progressToken: token }), 10);
        for (let tick = 1; tick <= 5; tick++) {
            store.publishProgress(task, { progress: tick, total: 5 });
        }
        await waitUntil(() => seen.length === 5, 'five progress events on the other instance');
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
        await waitUntil(async () => (await survivor.get(running.taskId))?.status === 'failed', 'the lost task to fail');
        const failed = await survivor.get(running.taskId);
        assert.match(failed!.statusMessage!, /Worker doomed-worker stopped responding \(no heartbeat within its 300 ms lease\)/);
        assert.match(JSON.stringify(await survivor.getOutcome(running.taskId)), /doomed-worker/);
        assert.equal((await survivor.get(finished.taskId))?.status, 'completed', 'finished results survive');
        assert.ok(events.some(e => e.type === 'status' && e.task.taskId === running.taskId && e.task.status === 'failed'));
        assert.equal((await survivor.get((await survivor.create(newTask('s'), 10)).taskId))?.status, 'working', "the survivor's own tasks are untouched");
        // The survivor keeps renewing its heartbeat past the lease, and stays registered; the lost worker does not.
        const beat = async () => Number(await redis.cli('PTTL', `${store.prefix}hb:survivor`));
        // A renewal shows as the TTL going up between two reads (against the first read alone, one
        // taken just after a renewal could stay the highest seen on a loaded machine).
        let last = await beat();
        await waitUntil(async () => {
            const now = await beat();
            const renewed = now > last;
            last = now;
            return renewed;
        }, "a renewal of the survivor's heartbeat");
        await waitUntil(async () => (await redis.cli('HEXISTS', `${store.prefix}workers`, 'doomed-worker')) === '0', 'the lost worker to be dropped');
        assert.equal(await redis.cli('HEXISTS', `${store.prefix}workers`, 'survivor'), '1');
    });
});
