/**
 * What every TaskStore promises the runtime, run against each store (taskStores.ts). "Across
 * instances" means two replicas on one Redis; in memory both sides are the same store.
 * What only one store has lives in memoryStore.test.ts and redisStore.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RpcError } from '../../../server/src/rpc/errors.js';
import { textResult } from '../../../server/src/tools/types.js';
import { SteppedClock } from '../../support/manualClock.js';
import { done, newTask, storeBackends } from '../../support/taskStores.js';

for (const backend of storeBackends()) {
    describe(`${backend.name}: the TaskStore contract`, { skip: backend.skip }, () => {
        before(() => backend.start());
        after(() => backend.stop());

        it('finishes a task exactly once (terminal guard)', async () => {
            const store = await backend.open();
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
            const store = await backend.open();
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
            const clock = new SteppedClock();
            const store = await backend.open(clock);
            const task = await store.create(newTask('a'), 10);
            clock.advance(5);
            const waiting = await store.setStatus(task.taskId, 'input_required', 'Waiting for the user');
            assert.equal(waiting?.status, 'input_required');
            assert.equal(waiting?.statusMessage, 'Waiting for the user');
            assert.ok(waiting!.lastUpdatedAt > task.lastUpdatedAt);
            assert.equal(waiting?.createdAt, task.createdAt);
            assert.equal((await store.setStatus(task.taskId, 'working'))?.statusMessage, undefined);
        });

        it('stores a quiet message-only change without a status event', async () => {
            const store = await backend.open();
            const task = await store.create(newTask('a'), 10);
            const seen: string[] = [];
            const subscription = store.onEvent(event => event.type === 'status' && seen.push(event.task.statusMessage ?? ''));
            const quiet = await store.setStatus(task.taskId, 'working', 'step 1/3', true);
            assert.equal(quiet?.statusMessage, 'step 1/3');
            assert.equal((await store.get(task.taskId))?.statusMessage, 'step 1/3');
            await store.setStatus(task.taskId, 'input_required', 'Waiting');
            subscription.dispose();
            assert.deepEqual(seen, ['Waiting'], 'only the status change is announced');
        });

        it('counts live tasks per client against the limit, across instances', async () => {
            const store = await backend.open();
            const other = await backend.peer(store);
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

        it('counts what a client\'s tasks hold against its byte budget, outcomes included, across instances, naming the limit', async () => {
            const store = await backend.open();
            const other = await backend.peer(store);
            const budget = { maxTasks: Infinity, maxBytes: 1000 };
            // An argument-less task holds some 300 characters: three fit in 1,000, until one ends with a result.
            const first = await store.create(newTask('a'), 10, budget);
            await other.create(newTask('a'), 10, budget);
            await other.finish(first.taskId, 'completed', { result: textResult('x'.repeat(300)) });
            const refused = (limit: number) => (err: unknown) =>
                err instanceof RpcError &&
                err.code === -32000 &&
                err.message.includes(`limit ${limit} bytes, --max-retained-bytes-per-client`) &&
                (err.data as { kind?: string }).kind === 'retainedBytes';
            await assert.rejects(store.create(newTask('a'), 10, budget), refused(1000));
            await assert.rejects(other.create(newTask('a'), 10, budget), refused(1000));
            await assert.rejects(store.create(newTask('a', { args: { note: 'y'.repeat(1000) } }), 10, { maxTasks: Infinity, maxBytes: 1900 }), refused(1900));
            await store.create(newTask('a'), 10, { maxTasks: Infinity, maxBytes: 1900 });
            // Another client has its own budget; no budget, no limit.
            await store.create(newTask('b'), 10, budget);
            await other.create(newTask('a'), 10);
        });

        it('lets exactly one of many concurrent finishes win, across instances', async () => {
            const store = await backend.open();
            const other = await backend.peer(store);
            const task = await store.create(newTask('a'), 10);
            const attempts = Array.from({ length: 20 }, (_, i) => (i % 2 ? store : other).finish(task.taskId, i % 3 ? 'completed' : 'cancelled', { result: textResult(`by ${i}`) }, `by ${i}`));
            const winners = (await Promise.all(attempts)).filter(Boolean);
            assert.equal(winners.length, 1);
            const outcome = await store.getOutcome(task.taskId);
            assert.deepEqual(outcome, { result: textResult(winners[0]!.statusMessage!) });
        });

        it('rejects cursors it did not issue', async () => {
            const store = await backend.open();
            await assert.rejects(store.list({ cursor: 'garbage', limit: 10 }), (err: unknown) => err instanceof RpcError && err.code === -32602);
        });

        it('pages through a client’s tasks in creation order', async () => {
            const store = await backend.open();
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
            const store = await backend.open();
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
    });
}
