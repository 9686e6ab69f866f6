import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { connectAlone } from '../../support/fleet.js';
import { startHttpServer, textOf, TRANSPORTS, type Connected, type HttpServer } from '../../support/helpers.js';
import { RawHttp } from '../../support/rawHttp.js';
import { listAllTasks, LooseTask, LooseTaskList } from '../../support/taskList.js';
import { waitUntil } from '../../support/wait.js';
import { marker, MessageTap, startTask, warmUp } from '../../support/messageTap.js';

const PARENT = 'dev.mcp-tasks/parent-task-id';

/** The children of `parentId`, in creation order (build, test, push for deploy), through the parent filter. */
async function childrenOf(client: Client, parentId: string): Promise<LooseTask[]> {
    return (await client.request({ method: 'tasks/list', params: { _meta: { [PARENT]: parentId } } }, LooseTaskList)).tasks;
}

interface StepSummary {
    step: string;
    status: string;
    seconds: number;
}

function stepsOf(result: { structuredContent?: Record<string, unknown> }): Record<string, string> {
    const steps = (result.structuredContent?.steps ?? []) as StepSummary[];
    return Object.fromEntries(steps.map(s => [s.step, s.status]));
}

for (const kind of TRANSPORTS) {
    describe(`sub-tasks over ${kind}`, () => {
        let c: Connected;
        let tap: MessageTap;

        before(async () => {
            c = await connectAlone(kind);
            tap = MessageTap.attach(c.client);
            await warmUp(c.client, tap);
        });
        after(() => c?.close());

        it('offers deploy as a task tool and keeps deploy_step hidden from tools/list and tools/call', async () => {
            const { tools } = await c.client.listTools();
            const deploy = tools.find(t => t.name === 'deploy');
            assert.equal(deploy?.execution?.taskSupport, 'required');
            assert.equal(deploy?.annotations?.destructiveHint, false);
            assert.equal(deploy?.annotations?.idempotentHint, false);
            assert.equal(deploy?.annotations?.openWorldHint, false);
            assert.ok(deploy?.outputSchema, 'deploy declares an outputSchema');
            assert.equal(tools.find(t => t.name === 'deploy_step'), undefined);
            const unknown = async (name: string) =>
                c.client.request({ method: 'tools/call', params: { name, arguments: { app: 'x', step: 'build', seconds: 0 }, task: {} } }, CallToolResultSchema).then(
                    () => 'no error',
                    (err: McpError) => `${err.code} ${err.message.replace(name, '<name>')}`,
                );
            assert.equal(await unknown('deploy_step'), await unknown('no_such_tool'));
            assert.match(await unknown('deploy_step'), /-32602 .*Unknown tool: <name>/);
        });

        it('runs build and test in parallel, joins them, then pushes', async () => {
            const progress: { progress: number; total?: number }[] = [];
            const { task } = await c.client.request(
                { method: 'tools/call', params: { name: 'deploy', arguments: { app: `par-${kind}` }, task: {} } },
                z.looseObject({ task: LooseTask }),
                { onprogress: p => progress.push(p) },
            );
            const result = await c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
            assert.equal(result.isError, undefined);
            assert.match(textOf(result), new RegExp(`^Deployed par-${kind} in \\d+\\.\\d s: build completed in \\d+\\.\\d s and test completed in \\d+\\.\\d s \\(in parallel\\), then push completed in \\d+\\.\\d s\\.$`));
            // Order, from the server's own stamps: build and test overlap (each started before the
            // other ended), and push started after both had ended.
            const [build, test, push] = (await childrenOf(c.client, task.taskId)).map(t => ({ step: t, start: Date.parse(String(t.createdAt)), end: Date.parse(String(t.lastUpdatedAt)) }));
            assert.ok(build!.start <= test!.end && test!.start <= build!.end, 'build and test overlap');
            assert.ok(push!.start >= build!.end && push!.start >= test!.end, 'push after both');
            const steps = result.structuredContent?.steps as StepSummary[];
            assert.equal(result.structuredContent?.app, `par-${kind}`);
            assert.deepEqual(
                steps.map(s => [s.step, s.status]),
                [
                    ['build', 'completed'],
                    ['test', 'completed'],
                    ['push', 'completed'],
                ],
            );
            steps.forEach(s => assert.equal(typeof s.seconds, 'number', `${s.step} reports how long it ran`));

            // Progress aggregates the children: seconds of work done out of 6, never going back.
            await tap.until(() => progress.some(p => p.progress === 6), 'the final aggregated progress');
            assert.ok(progress.every(p => p.total === 6));
            const values = progress.map(p => p.progress);
            assert.deepEqual([...values].sort((a, b) => a - b), values);
            assert.ok(values.length >= 5, `progress ${values.join(',')}`);

            // The three children are real tasks of this client, completed, with their own results.
            const children = await childrenOf(c.client, task.taskId);
            assert.equal(children.length, 3);
            assert.ok(children.every(t => t.status === 'completed' && t._meta?.[PARENT] === task.taskId));
            const texts = await Promise.all(children.map(async t => textOf(await c.client.experimental.tasks.getTaskResult(t.taskId, CallToolResultSchema))));
            assert.deepEqual(
                texts.map(t => t.replace(/\d+\.\d/, 'N')),
                [`Build of par-${kind} completed in N s`, `Test of par-${kind} completed in N s`, `Push of par-${kind} completed in N s`],
            );
            const listed = await listAllTasks(c.client);
            assert.ok(children.every(child => listed.some(t => t.taskId === child.taskId && t._meta?.[PARENT] === task.taskId)), 'children appear in the unfiltered list');
            assert.equal(listed.find(t => t.taskId === task.taskId)?._meta?.[PARENT], undefined, 'the parent has no parent');
            const got = await c.client.request({ method: 'tasks/get', params: { taskId: children[0]!.taskId } }, LooseTask);
            assert.equal(got._meta?.[PARENT], task.taskId, 'tasks/get shows the parent too');
            // Each child's status notifications reach this client as for any task.
            for (const child of children) {
                await tap.waitForStatus(child.taskId, 'completed');
            }
        });

        it('the parent filter lists exactly the children, and nothing for a task without any', async () => {
            const parentId = await startTask(c.client, 'deploy', { app: `filter-${kind}` });
            const children = await waitUntil(async () => {
                const list = await childrenOf(c.client, parentId);
                return list.length === 2 ? list : undefined;
            }, 'build and test to start');
            assert.ok(children.every(t => t._meta?.[PARENT] === parentId && t.taskId !== parentId));
            const lone = await startTask(c.client, 'slow_compute', { seconds: 0, label: 'lone' });
            assert.deepEqual(await childrenOf(c.client, lone), []);
            assert.deepEqual(await childrenOf(c.client, 'no-such-task'), []);
            await assert.rejects(
                c.client.request({ method: 'tasks/list', params: { _meta: { [PARENT]: 42 } } }, LooseTaskList),
                (err: McpError) => err.code === -32602,
            );
            await c.client.experimental.tasks.cancelTask(parentId);
            const after = await childrenOf(c.client, parentId);
            assert.deepEqual(
                after.map(t => [t.taskId, t.status]),
                children.map(t => [t.taskId, 'cancelled']),
                'ended children stay listed under their parent',
            );
        });

        it('cancelling the parent mid-build cancels every child first, naming the parent, and the work stops', async () => {
            const app = `cascade-${kind}`;
            const progress: number[] = [];
            const { task } = await c.client.request(
                { method: 'tools/call', params: { name: 'deploy', arguments: { app }, task: {} } },
                z.looseObject({ task: LooseTask }),
                { onprogress: p => progress.push(p.progress) },
            );
            await tap.until(() => progress.length >= 2, 'build and test to report their first second');
            const cancelled = await c.client.experimental.tasks.cancelTask(task.taskId);
            assert.equal(cancelled.status, 'cancelled');
            assert.equal(cancelled.statusMessage, 'Cancelled by the client');
            const progressAtCancel = progress.length;

            const children = await childrenOf(c.client, task.taskId);
            assert.equal(children.length, 2, 'push never started');
            for (const child of children) {
                assert.equal(child.status, 'cancelled');
                assert.equal(child.statusMessage, `Cancelled because parent task ${task.taskId} (deploy) was cancelled`);
                const result = await c.client.experimental.tasks.getTaskResult(child.taskId, CallToolResultSchema);
                assert.equal(result.isError, true);
                assert.match(textOf(result), /Task cancelled: Cancelled because parent task/);
            }
            await c.log.waitFor(new RegExp(`\\[deploy_step\\] cancelled build for ${app} at 1/3`));
            await c.log.waitFor(new RegExp(`\\[deploy_step\\] cancelled test for ${app} at 1/2`));

            // Children's terminal notifications are published before the parent's.
            const parentNote = await tap.waitForStatus(task.taskId, 'cancelled');
            for (const child of children) {
                const note = await tap.waitForStatus(child.taskId, 'cancelled');
                assert.ok(tap.seen.indexOf(note) < tap.seen.indexOf(parentNote), 'child cancelled before the parent');
            }
            // Both steps logged their stop; the marker flushes whatever the server sent before it.
            await marker(c.client, tap);
            assert.equal(progress.length, progressAtCancel, 'no progress after the cancel');
            for (const id of [task.taskId, ...children.map(t => t.taskId)]) {
                assert.deepEqual(tap.afterTerminal(id), []);
            }
            assert.equal(c.log.lines.filter(line => line.includes(`for ${app} at`)).length, 2, 'exactly the two running steps were aborted');
        });

        it('cancelling one child fails the parent, naming that child, and stops its sibling', async () => {
            const app = `child-${kind}`;
            const parentId = await startTask(c.client, 'deploy', { app });
            const [build, test] = await waitUntil(async () => {
                const list = await childrenOf(c.client, parentId);
                return list.length === 2 ? list : undefined;
            }, 'build and test to start');
            const cancelled = await c.client.experimental.tasks.cancelTask(build!.taskId);
            assert.equal(cancelled.statusMessage, 'Cancelled by the client');

            const result = await c.client.experimental.tasks.getTaskResult(parentId, CallToolResultSchema);
            assert.equal(result.isError, true);
            const expected = `Deploy of ${app} failed at step build: Sub-task deploy_step ${build!.taskId} cancelled: Cancelled by the client.`;
            assert.ok(textOf(result).startsWith(expected), textOf(result));
            assert.deepEqual(stepsOf(result), { build: 'cancelled', test: 'cancelled', push: 'skipped' });
            const parent = await c.client.experimental.tasks.getTask(parentId);
            assert.equal(parent.status, 'failed');
            assert.ok(parent.statusMessage?.startsWith(expected));
            const sibling = (await childrenOf(c.client, parentId)).find(t => t.taskId === test!.taskId);
            assert.equal(sibling?.status, 'cancelled');
            assert.equal(sibling?.statusMessage, `Cancelled by parent task ${parentId} (deploy): step build cancelled`);
            await c.log.waitFor(new RegExp(`\\[deploy_step\\] cancelled test for ${app} at 0/2`));
        });

        it('a failing step fails the deploy, naming the step and its sub-task (fail=build|test|push)', async () => {
            const expected: Record<string, Record<string, string>> = {
                // build fails at 3 s, after test completed at 2 s.
                build: { build: 'failed', test: 'completed', push: 'skipped' },
                // test fails at 2 s; build is stopped, since the deploy cannot succeed.
                test: { build: 'cancelled', test: 'failed', push: 'skipped' },
                push: { build: 'completed', test: 'completed', push: 'failed' },
            };
            await Promise.all(
                Object.entries(expected).map(async ([step, statuses]) => {
                    const app = `fail-${step}-${kind}`;
                    const parentId = await startTask(c.client, 'deploy', { app, fail: step });
                    const result = await c.client.experimental.tasks.getTaskResult(parentId, CallToolResultSchema);
                    assert.equal(result.isError, true);
                    assert.deepEqual(stepsOf(result), statuses, step);
                    const failedChild = (await childrenOf(c.client, parentId)).find(t => t.status === 'failed');
                    const name = step[0]!.toUpperCase() + step.slice(1);
                    const message = new RegExp(`^Deploy of ${app} failed at step ${step}: Sub-task deploy_step ${failedChild!.taskId} failed: ${name} of ${app} failed after \\d+\\.\\d s \\(simulated failure, fail="${step}"\\)\\.`);
                    assert.match(textOf(result), message);
                    const parent = await c.client.experimental.tasks.getTask(parentId);
                    assert.equal(parent.status, 'failed');
                    assert.match(parent.statusMessage ?? '', message);
                }),
            );
            await c.log.waitFor(new RegExp(`\\[deploy_step\\] cancelled build for fail-test-${kind} at [12]/3`));
        });
    });
}

describe('sub-tasks over raw HTTP', () => {
    let server: HttpServer;
    let raw: RawHttp;

    before(async () => {
        server = await startHttpServer();
        raw = new RawHttp(server.url);
        await raw.initialize();
    });
    after(async () => {
        await server.stop();
    });

    it('shows the parent id in _meta on child tasks, and filters tasks/list by it', async () => {
        const created = await raw.call('tools/call', { name: 'deploy', arguments: { app: 'raw' }, task: {} });
        const parentId = ((created.result as Record<string, unknown>).task as LooseTask).taskId;
        const list = async (params: Record<string, unknown>) => ((await raw.call('tasks/list', params)).result as { tasks: LooseTask[] }).tasks;
        const children = await waitUntil(async () => {
            const page = await list({ _meta: { [PARENT]: parentId } });
            return page.length === 2 ? page : undefined;
        }, 'two children');
        for (const child of children) {
            assert.deepEqual(child._meta, { [PARENT]: parentId });
        }
        const everything = await list({});
        assert.equal(everything.find(t => t.taskId === parentId)?._meta, undefined);
        assert.deepEqual(
            everything.filter(t => t._meta?.[PARENT] === parentId).map(t => t.taskId),
            children.map(t => t.taskId),
        );
        const got = (await raw.call('tasks/get', { taskId: children[0]!.taskId })).result as LooseTask;
        assert.deepEqual(got._meta, { [PARENT]: parentId });

        // Another client sees neither the parent nor its children, filtered or not.
        const other = new RawHttp(server.url);
        await other.initialize();
        assert.deepEqual(((await other.call('tasks/list', { _meta: { [PARENT]: parentId } })).result as { tasks: LooseTask[] }).tasks, []);
        const cancelled = (await raw.call('tasks/cancel', { taskId: parentId })).result as LooseTask;
        assert.equal(cancelled.status, 'cancelled');
    });
});
