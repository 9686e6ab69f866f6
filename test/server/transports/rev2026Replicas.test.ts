import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startHttpServer, TEST_STORE, type HttpServer } from '../../support/helpers.js';
import { Http2026Client } from '../../support/rev2026.js';
import { waitUntil } from '../../support/wait.js';

// Two replicas on one Redis store serve a 2026-07-28 client with no sticky routing: a task made
// on one is read, answered (tasks/update) and cancelled on the other. Runs with a shared store
// only (`npx tsx scripts/withRedis.ts -- node --import tsx --test test/server/transports/rev2026Replicas.test.ts`).

const TOKEN = 'replica-token';
let one: HttpServer;
let two: HttpServer;
let a: Http2026Client;
let b: Http2026Client;

function untilStatus(client: Http2026Client, taskId: string, status: string): Promise<Record<string, unknown>> {
    return waitUntil(
        async () => {
            const task = await client.call('tasks/get', { taskId });
            return task.status === status && (status !== 'input_required' || Object.keys(task.inputRequests as object).length > 0) ? task : undefined;
        },
        `task ${taskId} ${status}`,
        { everyMs: 50 },
    );
}

describe('protocol 2026-07-28 across two replicas', { skip: TEST_STORE ? false : 'needs a shared store (run under scripts/withRedis.ts)' }, () => {
    before(async () => {
        const prefix = ['--store-prefix', `test-${randomUUID()}:`, '--store', TEST_STORE!];
        [one, two] = await Promise.all([startHttpServer(['--token', TOKEN, '--conformance-fixtures', ...prefix]), startHttpServer(['--token', TOKEN, '--conformance-fixtures', ...prefix])]);
        a = new Http2026Client(one.url, TOKEN);
        b = new Http2026Client(two.url, TOKEN);
    });

    after(async () => {
        await Promise.all([one?.stop(), two?.stop()]);
    });

    it('shows and takes the answers to a task input request on the replica that does not run it', async () => {
        const created = await a.call('tools/call', { name: 'confirm_delete', arguments: { filename: 'replica.txt' } });
        const taskId = created.taskId as string;
        const waiting = await untilStatus(b, taskId, 'input_required');
        const [key] = Object.keys(waiting.inputRequests as object);
        assert.deepEqual(await b.call('tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: { confirm: 'delete' } } } }), { resultType: 'complete' });
        const done = await untilStatus(b, taskId, 'completed');
        assert.equal((done.result as { content: { text: string }[] }).content[0]!.text, "Confirmed: would delete 'replica.txt' (demo: nothing deleted)");
    });

    it('takes a multi round-trip retry on the other replica (one requestState key for both)', async () => {
        const name = 'test_input_required_result_multi_round';
        const r1 = await a.call('tools/call', { name, arguments: {} });
        const r2 = await b.call('tools/call', { name, arguments: {}, inputResponses: { step1: { action: 'accept', content: { name: 'Ada' } } }, requestState: r1.requestState });
        const r3 = await a.call('tools/call', { name, arguments: {}, inputResponses: { step2: { action: 'accept', content: { color: 'blue' } } }, requestState: r2.requestState });
        assert.equal((r3.content as { text: string }[])[0]!.text, 'Ada likes blue');
    });

    it('cancels from the other replica', async () => {
        const created = await a.call('tools/call', { name: 'slow_compute', arguments: { seconds: 60 } });
        const taskId = created.taskId as string;
        assert.deepEqual(await b.call('tasks/cancel', { taskId }), { resultType: 'complete' });
        await untilStatus(a, taskId, 'cancelled');
    });
});
