import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectAlone } from '../../support/fleet.js';
import { textOf, TRANSPORTS, type Connected } from '../../support/helpers.js';
import { marker, MessageTap, RELATED, relatedOf, startTask, taskIdOf, TERMINAL, warmUp, type Message, type Seen } from '../../support/messageTap.js';

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
            c.client.setRequestHandler(ElicitRequestSchema, () => {
                elicitations++;
                return Promise.resolve({ action: 'accept', content: { confirm: 'delete' } });
            });
            tap = MessageTap.attach(c.client);
            await warmUp(c.client, tap);
        });
        after(() => c?.close());

        it('notifies input_required → working → completed, each a full Task, and nothing after', async () => {
            const taskId = await startTask(c.client, 'confirm_delete', { filename: 'n.txt' });
            await tap.waitForStatus(taskId, 'completed');
            await marker(c.client, tap);
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
            assert.equal(textOf(result), "Confirmed: would delete 'n.txt' (demo: nothing deleted)");
        });

        it('notifies failed once, with the diagnostic statusMessage, and nothing after', async () => {
            const taskId = await startTask(c.client, 'failing_job', {});
            const failed = await tap.waitForStatus(taskId, 'failed');
            assertFullTask(failed, taskId);
            assert.match(String(failed.message.params?.statusMessage), /Job failed/);
            await marker(c.client, tap);
            assert.deepEqual(tap.statuses(taskId), ['failed']);
            assert.deepEqual(tap.afterTerminal(taskId), []);
        });

        it('reports progress with the caller token and related-task _meta for the whole task, all before completed', async () => {
            const token = `tok-${kind}-${Math.random().toString(36).slice(2)}`;
            const taskId = await startTask(c.client, 'slow_compute', { seconds: 2, label: 'prog' }, { progressToken: token });
            await tap.waitForStatus(taskId, 'completed');
            await marker(c.client, tap);
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

        it('keeps statusMessage in step with the progress messages of a task-augmented slow_compute, without a status notification per tick', async () => {
            const token = `tok-step-${kind}`;
            const taskId = await startTask(c.client, 'slow_compute', { seconds: 2, label: 'step' }, { progressToken: token });
            const first = await tap.until(() => tap.progressFor(taskId)[0], 'the first progress notification');
            const seen = await c.client.experimental.tasks.getTask(taskId);
            if (seen.status === 'working') {
                // What tasks/get says is a message the client is shown (over HTTP the note may come on the other stream, so wait for it).
                await tap.until(() => tap.progressFor(taskId).some(p => p.message.params?.message === seen.statusMessage), `a progress note saying "${seen.statusMessage}"`);
            }
            assert.equal(first.message.params?.message, 'step: 1/2 s');
            await tap.waitForStatus(taskId, 'completed');
            await marker(c.client, tap);
            assert.deepEqual(
                tap.progressFor(taskId).map(p => p.message.params?.message),
                ['step: 1/2 s', 'step: 2/2 s'],
            );
            assert.deepEqual(tap.statuses(taskId), ['completed']);
        });

        it('sends a failure as the last progress note, the same words as the failed statusMessage', async () => {
            const token = `tok-fail-${kind}`;
            const taskId = await startTask(c.client, 'failing_job', {}, { progressToken: token });
            const failed = await tap.waitForStatus(taskId, 'failed');
            await marker(c.client, tap);
            const notes = tap.progressFor(taskId);
            assert.ok(notes.length >= 1, 'a progress note before the end');
            const last = notes.at(-1)!;
            assert.equal(last.message.params?.progressToken, token);
            assert.equal(last.message.params?.message, failed.message.params?.statusMessage);
            assert.equal((await c.client.experimental.tasks.getTask(taskId)).statusMessage, last.message.params?.message);
            assert.ok(last.at <= failed.at, 'no progress after the terminal status');
            assert.deepEqual(tap.afterTerminal(taskId), []);
        });

        it('stops progress and status notifications at cancellation', async () => {
            const token = `tok-cancel-${kind}`;
            const label = `stop-${kind}`;
            const taskId = await startTask(c.client, 'slow_compute', { seconds: 3, label }, { progressToken: token });
            await tap.until(() => tap.progressFor(taskId).length === 1, 'the first progress notification');
            const cancelled = await c.client.experimental.tasks.cancelTask(taskId);
            assert.equal(cancelled.status, 'cancelled');
            const cancelledAt = performance.now();
            await c.log.waitFor(new RegExp(`\\[slow_compute\\] cancelled "${label}" at 1/3`));
            // The work logged its stop at 1/3: it reports nothing more, and the marker flushes whatever was sent before.
            await marker(c.client, tap);
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
                    // Aimed at a moment, to make the race; the assertions hold whichever side wins.
                    await delay(Math.max(0, Date.parse(created.createdAt) + 950 + i * 4 - Date.now()));
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
            await Promise.all(runs.map(run => tap.waitForStatus(run.taskId, run.cancel === 'rejected' ? 'completed' : 'cancelled')));
            await marker(c.client, tap);

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

        it('wakes tasks/result on completion rather than on a poll', async () => {
            // 1.5 s is off the 1 s grid: a 1 s poll would answer it on the 2 s tick, with the 2 s task.
            const [early, late] = await Promise.all([startTask(c.client, 'slow_compute', { seconds: 1.5, label: 'wake-1.5' }), startTask(c.client, 'slow_compute', { seconds: 2, label: 'wake-2' })]);
            const result = await c.client.experimental.tasks.getTaskResult(early, CallToolResultSchema);
            assert.equal(textOf(result), 'Computation "wake-1.5" completed after 1.5 seconds. Result: 42.', 'tasks/result blocked until the work was done');
            assert.deepEqual(result._meta?.[RELATED], { taskId: early });
            const lateDone = await tap.waitForStatus(late, 'completed');
            const answered = tap.incoming().find(s => s.message.id !== undefined && s.message.method === undefined && (s.message.result as Message | undefined)?._meta !== undefined && taskIdOf(s.message) === early);
            assert.ok(answered, 'the tasks/result response crossed the transport');
            assert.ok(tap.seen.indexOf(answered) < tap.seen.indexOf(lateDone), 'the 1.5 s result came before the 2 s task ended');
        });
    });
}
