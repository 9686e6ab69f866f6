import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { RpcError } from '../../server/src/rpc/errors.js';
import { RedisTaskStore } from '../../server/src/tasks/redisStore.js';
import type { NewTask, TaskEvent } from '../../server/src/tasks/types.js';
import { textResult } from '../../server/src/tools/types.js';
import { waitUntil } from './helpers.js';
import { redisSkipReason, startRedis, type RedisServer } from './redisHelpers.js';

const newTask = (clientKey: string, extra: Partial<NewTask> = {}): NewTask => ({ clientKey, toolName: 'slow_compute', args: {}, ttl: 60_000, pollInterval: 1000, ...extra });
const done = { result: textResult('done') };

/** The MemoryTaskStore's contract (units.test.ts), against Redis, plus what only a shared store has. */
describe('RedisTaskStore', { skip: redisSkipReason() }, () => {
    let redis: RedisServer;
    const stores: RedisTaskStore[] = [];

    /** A store in its own namespace, or joining `prefix` to share it. */
    const open = async (prefix = `t-${randomUUID()}:`, workerId = `w-${randomUUID().slice(0, 8)}`, leaseMs = 10_000) => {
        const store = await RedisTaskStore.connect({ url: redis.url, prefix, workerId, leaseMs });
        stores.push(store);
        return store;
    };

    before(async () => {
        redis = await startRedis();
    });
    after(async () => {
        await Promise.all(stores.map(s => s.close()));
        await redis.stop();
    });

    it('finishes a task exactly once (terminal guard)', async () => {
        const store = await open();
        const task = await store.create(newTask('a'), 10);
        assert.equal(task.status, 'working');
        const first = await store.finish(task.taskId, 'cancelled', { result: textResult('cancelled', true) }, 'Cancelled by the client');
        assert.equal(first?.status, 'cancelled');
        assert.equal(first?.statusMessage, 'Cancelled by the client');
        assert.equal(await store.finish(task.taskId, 'completed', done), undefined);
        assert.equal(await store.setStatus(task.taskId, 'working'), undefined);
        assert.equal((await store.get(task.taskId))?.status, 'cancelled');
        assert.deepEqual(await store.getOutcome(task.taskId), { result: textResult('cancelled', true) });
        assert.equal(await store.finish('no-such-task', 'completed', done), undefined);
    });

    it('keeps every field of a record, and the arguments byte for byte', async () => {
        const store = await open();
        const args = { seconds: 0.1, big: 9007199254740991, tiny: 1e-7, float: 0.1 + 0.2, nested: { list: [1.5, 'x/y', null, true], unicode: 'héllo ✓' } };
        const task = await store.create(newTask('a', { args, clientName: 'cli', parentTaskId: 'P', progressToken: 7, worker: 'w1' }), 10);
        const again = await store.get(task.taskId);
        assert.deepEqual(again, task);
        assert.deepEqual(again?.args, args);
        await store.setExternalRef(task.taskId, 'job-9');
        assert.equal((await store.get(task.taskId))?.externalRef, 'job-9');
        await store.setExternalRef('gone', 'job-10');
        assert.equal(await store.get('gone'), undefined, 'setExternalRef never creates a task');
    });

    it('moves between live statuses and updates lastUpdatedAt', async () => {
        const store = await open();
        const task = await store.create(newTask('a'), 10);
        await new Promise(r => setTimeout(r, 5));
        const waiting = await store.setStatus(task.taskId, 'input_required', 'Waiting for the user');
        assert.equal(waiting?.status, 'input_required');
        assert.equal(waiting?.statusMessage, 'Waiting for the user');
        assert.ok(waiting!.lastUpdatedAt > task.lastUpdatedAt);
        assert.equal(waiting?.createdAt, task.createdAt);
        assert.equal((await store.setStatus(task.taskId, 'working'))?.statusMessage, undefined);
    });

    it('counts live tasks per client against the limit, across instances', async () => {
        const store = await open();
        const other = await open(store.prefix);
        const a1 = await store.create(newTask('a'), 2);
        await other.create(newTask('a'), 2);
        await assert.rejects(store.create(newTask('a'), 2), (err: unknown) => err instanceof RpcError && err.code === -32000 && /limit 2/.test(err.message));
        await assert.rejects(other.create(newTask('a'), 2), RpcError);
        await store.create(newTask('b'), 2);
        await other.finish(a1.taskId, 'completed', done);
        await store.create(newTask('a'), 2);
        await assert.rejects(store.create(newTask('a'), 2), RpcError);
        await store.finish(a1.taskId, 'failed', done);
        await assert.rejects(other.create(newTask('a'), 2), RpcError, 'a repeated finish must not free a second slot');
    });

    it('lets exactly one of many concurrent finishes win, across instances', async () => {
        const store = await open();
        const other = await open(store.prefix);
        const task = await store.create(newTask('a'), 10);
        const attempts = Array.from({ length: 20 }, (_, i) => (i % 2 ? store : other).finish(task.taskId, i % 3 ? 'completed' : 'cancelled', { result: textResult(`by ${i}`) }, `by ${i}`));
        const winners = (await Promise.all(attempts)).filter(Boolean);
        assert.equal(winners.length, 1);
        const outcome = await store.getOutcome(task.taskId);
        assert.deepEqual(outcome, { result: textResult(winners[0]!.statusMessage!) });
    });

    it('rejects cursors it did not issue', async () => {
        const store = await open();
        await assert.rejects(store.list({ cursor: 'garbage', limit: 10 }), (err: unknown) => err instanceof RpcError && err.code === -32602);
    });

    it('pages through a client’s tasks in creation order', async () => {
        const store = await open();
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) {
            ids.push((await store.create(newTask('a'), 100)).taskId);
            await store.create(newTask('b'), 100);
        }
        const seen: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
            const page = await store.list({ clientKey: 'a', cursor, limit: 2 });
            assert.ok(page.tasks.length <= 2);
            seen.push(...page.tasks.map(t => t.taskId));
            cursor = page.nextCursor;
            pages++;
        } while (cursor);
        assert.deepEqual(seen, ids);
        assert.equal(pages, 3);
        const exact = await store.list({ clientKey: 'a', limit: 5 });
        assert.equal(exact.tasks.length, 5);
        assert.equal(exact.nextCursor, undefined, 'no cursor when nothing is left');
        assert.equal((await store.list({ limit: 100 })).tasks.length, 10, 'no clientKey lists every client');
        assert.deepEqual((await store.list({ clientKey: 'nobody', limit: 10 })).tasks, []);
    });

    it('lists by parent, optionally restricted to one client', async () => {
        const store = await open();
        const parent = await store.create(newTask('a'), 100);
        const childA = await store.create(newTask('a', { parentTaskId: parent.taskId }), 100);
        const childB = await store.create(newTask('b', { parentTaskId: parent.taskId }), 100);
        await store.create(newTask('a', { parentTaskId: 'other-parent' }), 100);
        assert.deepEqual(
            (await store.list({ parentTaskId: parent.taskId, limit: 10 })).tasks.map(t => t.taskId),
            [childA.taskId, childB.taskId],
        );
        assert.deepEqual(
            (await store.list({ parentTaskId: parent.taskId, clientKey: 'b', limit: 10 })).tasks.map(t => t.taskId),
            [childB.taskId],
        );
        assert.deepEqual((await store.list({ parentTaskId: 'unknown', limit: 10 })).tasks, []);
    });

    it("expires a task through Redis key expiry: gone everywhere, 'deleted' published, indexes cleaned, live slot freed", async () => {
        const store = await open();
        const other = await open(store.prefix);
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
        const store = await open();
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
        const store = await open();
        const other = await open(store.prefix);
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

    it('fails the live tasks of a worker whose lease lapsed, naming it', async () => {
        const store = await open(undefined, 'doomed-worker', 300);
        const survivor = await open(store.prefix, 'survivor', 300);
        const events: TaskEvent[] = [];
        survivor.onEvent(e => events.push(e));
        const running = await store.create(newTask('a'), 10);
        const finished = await store.create(newTask('a'), 10);
        await store.finish(finished.taskId, 'completed', done);
        // A crash: the heartbeat stops without the clean retire of close().
        (store as unknown as { timers: NodeJS.Timeout[] }).timers.forEach(t => clearInterval(t));
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
