import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectAlone } from './fleet.js';
import { sleep, textOf, TRANSPORTS, waitUntil, type Connected } from './helpers.js';
import { MessageTap, RELATED, relatedOf, startTask, TERMINAL, warmUp, type Seen } from './messageTap.js';

/** How long "nothing more arrives" is watched for after a terminal status. */
const QUIET_MS = 400;

function assertFullTask(note: Seen, taskId: string): void {
    const params = note.message.params ?? {};
    assert.equal(params.taskId, taskId);
    for (const field of ['status', 'createdAt', 'lastUpdatedAt', 'pollInterval']) {
        assert.ok(params[field] !== undefined, `status notification carries ${field}`);
    }
    assert.ok('ttl' in params, 'status notification carries ttl');
    assert.equal(relatedOf(note.message), undefined, 'status notifications carry no related-task _meta');
}

for (const kind of TRANSPORTS) {
    describe(`status and progress notifications over ${kind}`, () => {
        let c: Connected;
        let tap: MessageTap;
        let elicitations = 0;

        before(async () => {
            c = await connectAlone(kind, { capabilities: { elicitation: {} } });
            c.client.setRequestHandler(ElicitRequestSchema, async () => {
                elicitations++;
                await sleep(150);
                return { action: 'accept', content: { confirm: true } };
            });
            tap = MessageTap.attach(c.client);
            await warmUp(c.client, tap);
        });
        after(() => c?.close());

        it('notifies input_required → working → completed, each a full Task, and nothing after', async () => {
            const taskId = await startTask(c.client, 'confirm_delete', { filename: 'n.txt' });
            await tap.waitForStatus(taskId, 'completed');
            await sleep(QUIET_MS);
            const notes = tap.statusNotes(taskId);
            assert.deepEqual(
                notes.map(n => n.message.params?.status),
                ['input_required', 'working', 'completed'],
            );
            notes.forEach(note => assertFullTask(note, taskId));
            assert.match(String(notes[0]!.message.params?.statusMessage), /Waiting for the user: Delete 'n\.txt'\?/);
            const stamps = notes.map(n => String(n.message.params?.lastUpdatedAt));
            assert.deepEqual([...stamps].sort(), stamps, 'lastUpdatedAt never goes back');
            assert.deepEqual(tap.afterTerminal(taskId), []);
            assert.equal(elicitations >= 1, true);
            const result = await c.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
            assert.equal(textOf(result), "Deleted 'n.txt'");
        });

        it('notifies failed once, with the diagnostic statusMessage, and nothing after', async () => {
            const taskId = await startTask(c.client, 'failing_job', {});
            const failed = await tap.waitForStatus(taskId, 'failed', 4000);
            assertFullTask(failed, taskId);
            assert.match(String(failed.message.params?.statusMessage), /Job failed/);
            await sleep(QUIET_MS);
            assert.deepEqual(tap.statuses(taskId), ['failed']);
            assert.deepEqual(tap.afterTerminal(taskId), []);
        });

        it('reports progress with the caller token and related-task _meta for the whole task, all before completed', async () => {
            const token = `tok-${kind}-${Math.random().toString(36).slice(2)}`;
            const taskId = await startTask(c.client, 'slow_compute', { seconds: 2, label: 'prog' }, { progressToken: token });
            await tap.waitForStatus(taskId, 'completed', 5000);
            await sleep(QUIET_MS);
            const progress = tap.progressFor(taskId);
            assert.deepEqual(
                progress.map(p => [p.message.params?.progressToken, p.message.params?.progress, p.message.params?.total]),
                [
                    [token, 1, 2],
                    [token, 2, 2],
                ],
            );
            progress.forEach(p => assert.deepEqual(relatedOf(p.message), { taskId }));
            // Nothing with this token that is not tagged with the task either.
            assert.equal(tap.notifications('notifications/progress').filter(p => p.message.params?.progressToken === token).length, 2);
            assert.deepEqual(tap.statuses(taskId), ['completed']);
            assert.deepEqual(tap.afterTerminal(taskId), []);
        });

        it('stops progress and status notifications at cancellation', async () => {
            const token = `tok-cancel-${kind}`;
            const label = `stop-${kind}`;
            const taskId = await startTask(c.client, 'slow_compute', { seconds: 3, label }, { progressToken: token });
            await waitUntil(() => tap.progressFor(taskId).length === 1, 3000, 'the first progress notification');
            const cancelled = await c.client.experimental.tasks.cancelTask(taskId);
            assert.equal(cancelled.status, 'cancelled');
            const cancelledAt = performance.now();
            await c.log.waitFor(new RegExp(`\\[slow_compute\\] cancelled "${label}" at 1/3`));
            // Past the 2 s tick the work would have reported had it kept running.
            await sleep(1300);
            assert.deepEqual(tap.statuses(taskId), ['cancelled']);
            assertFullTask(tap.statusNotes(taskId)[0]!, taskId);
            assert.equal(tap.statusNotes(taskId)[0]!.message.params?.statusMessage, 'Cancelled by the client');
            assert.equal(tap.progressFor(taskId).length, 1);
            assert.equal(tap.progressFor(taskId).filter(p => p.at > cancelledAt).length, 0);
            assert.equal(tap.notifications('notifications/progress').filter(p => p.message.params?.progressToken === token).length, 1);
            assert.deepEqual(tap.afterTerminal(taskId), []);
            assert.equal((await c.client.experimental.tasks.getTask(taskId)).status, 'cancelled');
        });

        it('resolves each cancel/complete race to exactly one terminal state (30 tasks)', async t => {
            const N = 30;
            const runs = await Promise.all(
                Array.from({ length: N }, async (_, i) => {
                    const { task: created } = await c.client.request(
                        { method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 1, label: `race-${i}` }, task: {} } },
                        CreateTaskResultSchema,
                    );
                    const taskId = created.taskId;
                    // Cancels are sent from 50 ms before to 66 ms after the task's one-second mark (same host, same clock).
                    await sleep(Math.max(0, Date.parse(created.createdAt) + 950 + i * 4 - Date.now()));
                    try {
                        const task = await c.client.experimental.tasks.cancelTask(taskId);
                        return { i, taskId, cancel: task.status as string };
                    } catch (err) {
                        assert.ok(err instanceof McpError, String(err));
                        assert.equal(err.code, -32602);
                        assert.match(err.message, /already completed/);
                        return { i, taskId, cancel: 'rejected' };
                    }
                }),
            );
            await Promise.all(runs.map(run => tap.waitForStatus(run.taskId, run.cancel === 'rejected' ? 'completed' : 'cancelled', 3000)));
            await sleep(QUIET_MS);

            let cancelled = 0;
            for (const run of runs) {
                const what = `race-${run.i} (cancel → ${run.cancel})`;
                const task = await c.client.experimental.tasks.getTask(run.taskId);
                const result = await c.client.experimental.tasks.getTaskResult(run.taskId, CallToolResultSchema);
                if (run.cancel === 'rejected') {
                    assert.equal(task.status, 'completed', what);
                    assert.equal(textOf(result), `Computation "race-${run.i}" completed after 1 seconds. Result: 42.`, what);
                } else {
                    cancelled++;
                    assert.equal(run.cancel, 'cancelled', what);
                    assert.equal(task.status, 'cancelled', `${what}: a cancelled task stays cancelled`);
                    assert.equal(result.isError, true, what);
                    assert.match(textOf(result), /cancelled/i, what);
                }
                const terminal = tap.statusNotes(run.taskId).filter(n => TERMINAL.includes(n.message.params?.status as never));
                assert.deepEqual(
                    terminal.map(n => n.message.params?.status),
                    [task.status],
                    `${what}: exactly one terminal status notification, agreeing with tasks/get`,
                );
                assert.deepEqual(tap.afterTerminal(run.taskId), [], what);
                await assert.rejects(c.client.experimental.tasks.cancelTask(run.taskId), (err: McpError) => err.code === -32602, `${what}: cancelling a terminal task`);
            }
            t.diagnostic(`race over ${kind}: ${cancelled} cancelled, ${N - cancelled} completed`);
        });

        it('wakes tasks/result on completion rather than on a poll', async t => {
            // 1.5 s is off the 1 s grid, so a 1 s poll would answer ~500 ms late there.
            const measure = async (seconds: number) => {
                const label = `wake-${seconds}`;
                const t0 = performance.now();
                const taskId = await startTask(c.client, 'slow_compute', { seconds, label });
                const result = await c.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
                const resultAt = performance.now();
                assert.equal(textOf(result), `Computation "${label}" completed after ${seconds} seconds. Result: 42.`);
                assert.deepEqual(result._meta?.[RELATED], { taskId });
                const completed = await tap.waitForStatus(taskId, 'completed', 1000);
                const elapsed = resultAt - t0;
                t.diagnostic(`tasks/result over ${kind} (${seconds} s task): ${elapsed.toFixed(0)} ms after the call, ${(resultAt - completed.at).toFixed(0)} ms after the completed notification`);
                assert.ok(elapsed >= seconds * 1000 - 50, `tasks/result blocked until the work was done (${elapsed.toFixed(0)} ms)`);
                return elapsed;
            };
            const [one, oneAndHalf] = await Promise.all([measure(1), measure(1.5)]);
            assert.ok(one < 1500, `1 s task: tasks/result returned ${one.toFixed(0)} ms after the call`);
            assert.ok(oneAndHalf < 1850, `1.5 s task: tasks/result returned ${oneAndHalf.toFixed(0)} ms after the call`);
        });
    });
}
