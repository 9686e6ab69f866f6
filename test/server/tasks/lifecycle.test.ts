import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CallToolResultSchema, CreateTaskResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectAlone } from '../../support/fleet.js';
import { textOf, TRANSPORTS, type Connected } from '../../support/helpers.js';
import { waitUntil } from '../../support/wait.js';
import { pollUntilTerminal } from '../../support/messageTap.js';

const RELATED = 'io.modelcontextprotocol/related-task';

for (const kind of TRANSPORTS) {
    describe(`task lifecycle over ${kind}`, () => {
        let c: Connected;

        before(async () => {
            c = await connectAlone(kind);
        });
        after(() => c.close());

        it('declares the tasks capabilities', () => {
            const caps = c.client.getServerCapabilities();
            assert.deepEqual(caps?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
        });

        it('lists seven tools with their taskSupport (deploy_step stays hidden), then the plain task tools', async () => {
            const { tools } = await c.client.listTools();
            const support = Object.fromEntries(tools.map(t => [t.name, t.execution?.taskSupport ?? 'forbidden']));
            assert.deepEqual(support, {
                greet: 'forbidden',
                slow_compute: 'optional',
                failing_job: 'required',
                confirm_delete: 'required',
                write_haiku: 'required',
                external_job: 'required',
                deploy: 'required',
                start_slow_compute: 'forbidden',
                start_failing_job: 'forbidden',
                start_confirm_delete: 'forbidden',
                start_write_haiku: 'forbidden',
                start_external_job: 'forbidden',
                start_deploy: 'forbidden',
                get_task: 'forbidden',
                cancel_task: 'forbidden',
                list_tasks: 'forbidden',
            });
        });

        it('answers greet synchronously', async () => {
            const result = await c.client.callTool({ name: 'greet', arguments: { name: 'World' } });
            assert.equal(textOf(result), 'Hello, World!');
        });

        it('runs slow_compute inline when called without a task', async () => {
            const result = await c.client.request({ method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 0, label: 'now' } } }, CallToolResultSchema);
            assert.equal(textOf(result), 'Computation "now" completed after 0 seconds. Result: 42.');
            assert.deepEqual(result.structuredContent, { summary: 'Computation "now" completed after 0 seconds. Result: 42.', label: 'now', seconds: 0, result: 42 });
            assert.equal((result as Record<string, unknown>).task, undefined);
        });

        it('creates a task, reports progress with the caller token, and returns the result', async () => {
            const progress: number[] = [];
            const created = await c.client.request(
                { method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 2, label: 'p' }, task: {} } },
                CreateTaskResultSchema,
                { onprogress: p => progress.push(p.progress) },
            );
            const { task } = created;
            assert.equal(task.status, 'working');
            assert.match(task.taskId, /^[A-Za-z0-9_-]{22,}$/);
            assert.ok(task.createdAt && task.lastUpdatedAt);
            assert.equal(task.ttl, 3_600_000);
            assert.equal(task.pollInterval, 1000);

            const got = await c.client.experimental.tasks.getTask(task.taskId);
            assert.equal(got.taskId, task.taskId);
            assert.equal((got as Record<string, unknown>)._meta, undefined, 'tasks/get carries no related-task _meta');

            const result = await c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
            assert.equal(textOf(result), 'Computation "p" completed after 2 seconds. Result: 42.');
            assert.deepEqual(result._meta?.[RELATED], { taskId: task.taskId });
            await waitUntil(() => progress.length === 2, 'two progress notifications');
            assert.deepEqual(progress, [1, 2]);

            const done = await c.client.experimental.tasks.getTask(task.taskId);
            assert.equal(done.status, 'completed');
            assert.ok(done.lastUpdatedAt >= task.lastUpdatedAt);
        });

        it('fails failing_job with the failure text as statusMessage and an isError result', async () => {
            const { task } = await c.client.request({ method: 'tools/call', params: { name: 'failing_job', arguments: {}, task: {} } }, CreateTaskResultSchema);
            const result = await c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
            assert.equal(result.isError, true);
            assert.match(textOf(result), /Job failed/);
            const failed = await c.client.experimental.tasks.getTask(task.taskId);
            assert.equal(failed.status, 'failed');
            assert.match(failed.statusMessage ?? '', /Job failed/);
        });

        it('runs external_job through the external job system', async () => {
            const { task } = await c.client.request({ method: 'tools/call', params: { name: 'external_job', arguments: { job_id: 'job-7' }, task: {} } }, CreateTaskResultSchema);
            const working = await c.client.experimental.tasks.getTask(task.taskId);
            assert.ok(['working', 'completed'].includes(working.status));
            const result = await c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
            assert.equal(textOf(result), 'External job job-7 completed');
            assert.deepEqual(result._meta?.[RELATED], { taskId: task.taskId });
            assert.equal((await c.client.experimental.tasks.getTask(task.taskId)).status, 'completed');
        });

        it('cancels a running task, stops the work and keeps it cancelled', async () => {
            const { task } = await c.client.request({ method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 30, label: `cancel-${kind}` }, task: {} } }, CreateTaskResultSchema);
            const cancelled = await c.client.experimental.tasks.cancelTask(task.taskId);
            assert.equal(cancelled.status, 'cancelled');
            await c.log.waitFor(new RegExp(`\\[slow_compute\\] cancelled "cancel-${kind}" at 0/30`));
            const again = await c.client.experimental.tasks.getTask(task.taskId);
            assert.equal(again.status, 'cancelled');
            const result = await c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
            assert.equal(result.isError, true);
            assert.match(textOf(result), /cancelled/i);
            await assert.rejects(c.client.experimental.tasks.cancelTask(task.taskId), (err: McpError) => err.code === -32602);
        });

        it('lists its tasks', async () => {
            const { tasks } = await c.client.experimental.tasks.listTasks();
            assert.ok(tasks.length >= 4);
            assert.ok(tasks.every(t => typeof t.taskId === 'string' && typeof t.status === 'string'));
        });

        it('answers spec error codes before running anything', async () => {
            const code = async (p: Promise<unknown>) => {
                try {
                    await p;
                } catch (err) {
                    return (err as McpError).code;
                }
                return 'no error';
            };
            assert.equal(await code(c.client.request({ method: 'tools/call', params: { name: 'failing_job', arguments: {} } }, CallToolResultSchema)), -32601);
            assert.equal(await code(c.client.request({ method: 'tools/call', params: { name: 'greet', arguments: { name: 'x' }, task: {} } }, CreateTaskResultSchema)), -32601);
            assert.equal(await code(c.client.experimental.tasks.getTask('no-such-task')), -32602);
            assert.equal(await code(c.client.experimental.tasks.getTaskResult('no-such-task', CallToolResultSchema)), -32602);
            assert.equal(await code(c.client.experimental.tasks.cancelTask('no-such-task')), -32602);
            assert.equal(await code(c.client.experimental.tasks.listTasks('bogus-cursor')), -32602);
            assert.equal(await code(c.client.request({ method: 'tools/call', params: { name: 'nope', arguments: {} } }, CallToolResultSchema)), -32602);
            assert.equal(await code(c.client.request({ method: 'resources/list', params: {} }, CallToolResultSchema)), -32601);
        });

        it('answers wrong arguments with a tool error the model can correct (SEP-1303): inline, and as a task ended failed at once', async () => {
            const wrong = /^Invalid arguments for tool slow_compute: seconds: .*expected number.*\. slow_compute takes \{seconds: number, label: string\}\. Call it again/;
            const inline = await c.client.request({ method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 'ten' } } }, CallToolResultSchema);
            assert.equal(inline.isError, true);
            assert.match((inline.content[0] as { text: string }).text, wrong);
            // Asked for a task, it gets one (what a 2025-11-25 requestor expects), whose statusMessage says it: all VS Code shows of a failed task.
            const { task } = await c.client.request({ method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 'ten' }, task: {} } }, CreateTaskResultSchema);
            assert.equal(await pollUntilTerminal(c.client, task.taskId), 'failed');
            assert.match((await c.client.experimental.tasks.getTask(task.taskId)).statusMessage ?? '', wrong);
            const result = await c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
            assert.equal(result.isError, true);
            assert.match((result.content[0] as { text: string }).text, wrong);
        });
    });
}

for (const kind of TRANSPORTS) {
    describe(`external job cancel over ${kind}`, () => {
        let c: Connected;
        before(async () => {
            c = await connectAlone(kind);
        });
        after(() => c.close());

        it('cancels a running external job through its job system', async () => {
            const { task } = await c.client.request({ method: 'tools/call', params: { name: 'external_job', arguments: { job_id: 'job-x' }, task: {} } }, CreateTaskResultSchema);
            const cancelled = await c.client.experimental.tasks.cancelTask(task.taskId);
            assert.equal(cancelled.status, 'cancelled');
            assert.equal((await c.client.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
        });
    });
}
