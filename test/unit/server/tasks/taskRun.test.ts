/**
 * Each way a task stops goes through TaskRun.stop once: exactly one terminal store write (none
 * when the end was recorded elsewhere or the task expired) and one status notification, on a
 * real runtime and in-memory store driven by a virtual clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { createLogger } from '../../../../server/src/util/log.js';
import { ClientHub, type ClientLink } from '../../../../server/src/tasks/hub.js';
import { MemoryTaskStore } from '../../../../server/src/tasks/memoryStore.js';
import { TASK_STATUS_METHOD, TaskRuntime } from '../../../../server/src/tasks/runtime.js';
import { RELATED_TASK_META_KEY } from '../../../../server/src/tasks/wire.js';
import type { TaskOutcome, TaskRecord, TerminalStatus } from '../../../../server/src/tasks/types.js';
import { ToolRegistry } from '../../../../server/src/tools/registry.js';
import { defineTool, textResult, type ToolDefinition } from '../../../../server/src/tools/types.js';
import { ManualClock } from '../../../support/manualClock.js';
import { waitUntil } from '../../../support/wait.js';

/** The in-memory store, counting the terminal writes made through it; `elsewhere` writes as another process would. */
class CountingStore extends MemoryTaskStore {
    readonly finishes: { taskId: string; status: TerminalStatus; statusMessage?: string }[] = [];

    override finish(taskId: string, status: TerminalStatus, outcome: TaskOutcome, statusMessage?: string): Promise<TaskRecord | undefined> {
        this.finishes.push({ taskId, status, statusMessage });
        return super.finish(taskId, status, outcome, statusMessage);
    }

    elsewhere(taskId: string, status: TerminalStatus, statusMessage: string): Promise<TaskRecord | undefined> {
        return super.finish(taskId, status, { result: textResult(statusMessage, true) }, statusMessage);
    }

    writesFor(taskId: string) {
        return this.finishes.filter(f => f.taskId === taskId);
    }
}

/** Why each task's code stopped, as its tool saw it. */
const stops = new Map<string, string>();

const nap = defineTool({
    name: 'nap',
    title: 'Nap',
    description: 'Sleeps, then completes, fails by throwing, or returns an error result.',
    inputSchema: z.object({ ms: z.number(), end: z.enum(['complete', 'throw', 'error']).default('complete') }),
    taskSupport: 'required',
    async run({ ms, end }, ctx) {
        try {
            await ctx.sleep(ms);
        } catch (err) {
            stops.set(ctx.taskId!, (err as Error).message);
            throw err;
        }
        if (end === 'throw') {
            throw new Error('boom');
        }
        return end === 'error' ? textResult('bad input', true) : textResult(`slept ${ms}`);
    },
});

const parent = defineTool({
    name: 'parent',
    title: 'Parent',
    description: 'After `delay` ms starts a napping child; waits for it unless `leave`.',
    inputSchema: z.object({ ms: z.number(), leave: z.boolean().default(false), delay: z.number().default(0) }),
    taskSupport: 'required',
    async run({ ms, leave, delay }, ctx) {
        if (delay) {
            await ctx.sleep(delay);
        }
        const child = await ctx.spawn('nap', { ms });
        if (leave) {
            return textResult(child.taskId);
        }
        try {
            return await child.wait();
        } catch (err) {
            stops.set(ctx.taskId!, (err as Error).message);
            throw err;
        }
    },
});

const LIMITS = { defaultTtlMs: 3_600_000, maxTtlMs: 86_400_000, maxTasksPerClient: 100, pollIntervalMs: 1000, maxSubtaskDepth: 4, maxChildrenPerTask: 16 };
const CLIENT = { clientKey: 'c', isOwner: false };

function setup(tools: ToolDefinition[] = [nap, parent]) {
    const clock = new ManualClock();
    const store = new CountingStore({ clock });
    const hub = new ClientHub();
    const notes: { taskId: string; status: string; statusMessage?: string }[] = [];
    const link: ClientLink = {
        identity: CLIENT,
        supports: () => false,
        notify: (method, params) => {
            if (method === TASK_STATUS_METHOD) {
                notes.push(params as (typeof notes)[number]);
            }
        },
        request: () => Promise.reject(new Error('no requests in these tests')),
    };
    hub.add(link);
    const logs: string[] = [];
    const runtime = new TaskRuntime(store, new ToolRegistry(tools), hub, LIMITS, createLogger('debug', line => logs.push(line)), 'w1', clock);
    const start = (name: string, args: Record<string, unknown>, ttl?: number) => runtime.createTask(CLIENT, runtime.tools.get(name)!, args, { ttl });
    const notesFor = (taskId: string) => notes.filter(n => n.taskId === taskId).map(n => n.status);
    return { clock, store, runtime, notes, notesFor, logs, start };
}

describe('TaskRun: each way a task stops happens once (virtual clock)', () => {
    it('completes: one terminal write and one notification when its code returns', async () => {
        const { clock, store, runtime, notesFor, start } = setup();
        const task = await start('nap', { ms: 1000 });
        await clock.tick(999);
        assert.deepEqual(store.finishes, []);
        assert.equal(runtime.runningCount, 1);
        await clock.tick(1);
        assert.deepEqual(store.writesFor(task.taskId), [{ taskId: task.taskId, status: 'completed', statusMessage: undefined }]);
        assert.deepEqual(notesFor(task.taskId), ['completed']);
        assert.equal(runtime.runningCount, 0);
        assert.deepEqual(await store.getOutcome(task.taskId), { result: textResult('slept 1000') });
        await clock.tick(10_000);
        assert.equal(store.finishes.length, 1);
    });

    it('fails: a throw and an error result each make one failed write naming why', async () => {
        const { clock, store, notesFor, start } = setup();
        const thrown = await start('nap', { ms: 10, end: 'throw' });
        const errored = await start('nap', { ms: 10, end: 'error' });
        await clock.tick(10);
        assert.deepEqual(store.writesFor(thrown.taskId), [{ taskId: thrown.taskId, status: 'failed', statusMessage: 'boom' }]);
        assert.deepEqual(store.writesFor(errored.taskId), [{ taskId: errored.taskId, status: 'failed', statusMessage: 'bad input' }]);
        assert.deepEqual(await store.getOutcome(thrown.taskId), { result: textResult('Tool nap failed: boom', true) });
        assert.deepEqual(notesFor(thrown.taskId), ['failed']);
        assert.deepEqual(notesFor(errored.taskId), ['failed']);
    });

    it('is cancelled: one write, the code stops with the reason, and its throw adds nothing', async () => {
        const { clock, store, runtime, notesFor, start } = setup();
        const task = await start('nap', { ms: 60_000 });
        await clock.tick(10);
        const cancelled = await runtime.cancel(CLIENT, task.taskId);
        assert.equal(cancelled.status, 'cancelled');
        assert.equal(cancelled.statusMessage, 'Cancelled by the client');
        await waitUntil(() => stops.has(task.taskId), 'the code to stop');
        assert.equal(stops.get(task.taskId), 'Task cancelled: Cancelled by the client');
        await clock.tick(60_000);
        assert.deepEqual(store.writesFor(task.taskId), [{ taskId: task.taskId, status: 'cancelled', statusMessage: 'Cancelled by the client' }]);
        assert.deepEqual(notesFor(task.taskId), ['cancelled']);
        await assert.rejects(runtime.cancel(CLIENT, task.taskId), /already cancelled/);
        assert.equal(store.finishes.length, 1);
    });

    it('a cancel racing the completion: the first stop wins, the other gets "already completed"', async () => {
        const { clock, store, runtime, notesFor, start } = setup();
        const task = await start('nap', { ms: 100 });
        // The code returns at 100 ms; the cancel reads the store in the same turn, before the completion lands.
        const [cancel] = await Promise.allSettled([runtime.cancel(CLIENT, task.taskId), clock.tick(100)]);
        const writes = store.writesFor(task.taskId);
        assert.equal(writes.length, 1, 'one terminal write');
        assert.deepEqual(notesFor(task.taskId), [writes[0]!.status]);
        if (cancel.status === 'rejected') {
            assert.match(String(cancel.reason), /already completed/);
        }
    });

    it('expires: the record is gone, so nothing is written; the code stops with "Task expired"', async () => {
        const { clock, store, runtime, notesFor, start } = setup();
        const task = await start('nap', { ms: 3_600_000 }, 1000);
        await clock.tick(999);
        assert.equal(runtime.runningCount, 1);
        await clock.tick(1);
        assert.equal(await store.get(task.taskId), undefined);
        assert.equal(stops.get(task.taskId), 'Task expired');
        assert.equal(runtime.runningCount, 0);
        assert.deepEqual(store.finishes, []);
        assert.deepEqual(notesFor(task.taskId), []);
    });

    it('shuts down: one cancelled write per task with the reason, and no new tasks', async () => {
        const { clock, store, runtime, notesFor, start } = setup();
        const a = await start('nap', { ms: 60_000 });
        const b = await start('nap', { ms: 60_000 });
        await clock.tick(5);
        await runtime.shutdown('Server shutting down');
        for (const task of [a, b]) {
            assert.deepEqual(store.writesFor(task.taskId), [{ taskId: task.taskId, status: 'cancelled', statusMessage: 'Server shutting down' }]);
            assert.deepEqual(notesFor(task.taskId), ['cancelled']);
        }
        await waitUntil(() => stops.has(a.taskId), 'the code to stop');
        assert.equal(stops.get(a.taskId), 'Task cancelled: Server shutting down');
        await assert.rejects(start('nap', { ms: 1 }), /shutting down/);
        await clock.tick(60_000);
        assert.equal(store.finishes.length, 2);
    });

    it('loses its worker: the end recorded elsewhere stops the code here without a second write', async () => {
        const { clock, store, runtime, notesFor, start } = setup();
        const task = await start('nap', { ms: 60_000 });
        await clock.tick(5);
        const message = 'Worker w1 stopped responding (no heartbeat within its 10000 ms lease); the work of this task was lost';
        await store.elsewhere(task.taskId, 'failed', message);
        await waitUntil(() => stops.has(task.taskId), 'the code to stop');
        assert.equal(stops.get(task.taskId), `Task failed: ${message}`);
        assert.equal(runtime.runningCount, 0);
        assert.deepEqual(store.finishes, [], 'the runtime wrote nothing');
        assert.deepEqual(notesFor(task.taskId), ['failed']);
        assert.equal((await store.get(task.taskId))?.statusMessage, message);
    });

    it("cascades from its parent: the child's one write and notification come before the parent's", async () => {
        const { clock, store, runtime, notes, start } = setup();
        const root = await start('parent', { ms: 60_000 });
        const child = await waitUntil(async () => (await store.list({ parentTaskId: root.taskId, limit: 10 })).tasks[0], 'the child to start');
        await clock.tick(5);
        await runtime.cancel(CLIENT, root.taskId);
        await waitUntil(() => stops.has(child.taskId) && stops.has(root.taskId), 'both codes to stop');
        const because = `Cancelled because parent task ${root.taskId} (parent) was cancelled`;
        assert.deepEqual(store.finishes, [
            { taskId: child.taskId, status: 'cancelled', statusMessage: because },
            { taskId: root.taskId, status: 'cancelled', statusMessage: 'Cancelled by the client' },
        ]);
        assert.deepEqual(
            notes.map(n => [n.taskId, n.status]),
            [
                [child.taskId, 'cancelled'],
                [root.taskId, 'cancelled'],
            ],
        );
        assert.equal(stops.get(child.taskId), `Task cancelled: ${because}`);
        assert.equal(stops.get(root.taskId), 'Task cancelled: Cancelled by the client', "the parent's wait ends with its own stop, not a child failure");
        assert.equal((await store.getOutcome(child.taskId))?.cascadeFrom, root.taskId);
        await clock.tick(60_000);
        assert.equal(store.finishes.length, 2);
        assert.equal(runtime.runningCount, 0);
    });

    it('a parent that completes, expires or ends elsewhere cancels its live child once', async () => {
        for (const how of ['completed', 'expired', 'failed'] as const) {
            const { clock, store, runtime, start } = setup();
            // Started 1 ms after its parent, the child (with the parent's ttl) outlives it by 1 ms.
            const root = await start('parent', { ms: 60_000, leave: how === 'completed', delay: 1 }, 1000);
            await clock.tick(1);
            const child = await waitUntil(async () => (await store.list({ parentTaskId: root.taskId, limit: 10 })).tasks[0], 'the child to start');
            if (how === 'expired') {
                await clock.tick(999);
            } else if (how === 'failed') {
                await store.elsewhere(root.taskId, 'failed', 'lost');
            }
            const writes = await waitUntil(() => (store.writesFor(child.taskId).length > 0 ? store.writesFor(child.taskId) : undefined), 'the child to stop');
            assert.equal(writes.length, 1, how);
            assert.equal(writes[0]!.statusMessage, `Cancelled because parent task ${root.taskId} (parent) ${how}`);
            assert.equal(store.writesFor(root.taskId).length, how === 'completed' ? 1 : 0, how);
            assert.equal(runtime.runningCount, 0, how);
        }
    });

    it('a cancel from another runtime sharing the store: one write there, the code here stops without writing', async () => {
        const { clock, store, runtime, notesFor, start } = setup();
        const other = new TaskRuntime(store, runtime.tools, new ClientHub(), LIMITS, createLogger('error', () => undefined), 'w2', clock);
        const root = await start('parent', { ms: 60_000 });
        const child = await waitUntil(async () => (await store.list({ parentTaskId: root.taskId, limit: 10 })).tasks[0], 'the child to start');
        await clock.tick(5);
        const cancelled = await other.cancel({ clientKey: 'owner', isOwner: true }, root.taskId);
        assert.equal(cancelled.statusMessage, 'Cancelled from the MCP Tasks sidebar');
        await waitUntil(() => stops.has(child.taskId) && runtime.runningCount === 0, 'the code here to stop');
        assert.deepEqual(
            store.finishes.map(f => [f.taskId, f.status]),
            [
                [child.taskId, 'cancelled'],
                [root.taskId, 'cancelled'],
            ],
        );
        assert.deepEqual(notesFor(root.taskId), ['cancelled']);
        assert.equal(runtime.runningCount, 0);
        assert.match(stops.get(child.taskId) ?? '', /^Task cancelled: Cancelled because parent task/);
        await clock.tick(60_000);
        assert.equal(store.finishes.length, 2);
        other.dispose();
    });
});

describe('TaskRun as the tool context: sleep and signal (virtual clock)', () => {
    const sleepy = defineTool({
        name: 'sleepy',
        title: 'Sleepy',
        description: 'Two sleeps at once, reporting how each ended.',
        inputSchema: z.object({}),
        taskSupport: 'required',
        async run(_args, ctx) {
            const signal = ctx.signal;
            const ended = await Promise.allSettled([ctx.sleep(100), ctx.sleep(200)]);
            const report = JSON.stringify({ ended: ended.map(e => e.status), aborted: signal.aborted, reason: signal.reason ? String((signal.reason as Error).message) : null });
            stops.set(ctx.taskId!, report);
            return textResult(report);
        },
    });

    it('sleeps resolve at their time, on the clock', async () => {
        const { clock, store, start } = setup([sleepy]);
        const task = await start('sleepy', {});
        await clock.tick(199);
        assert.equal((await store.get(task.taskId))?.status, 'working');
        await clock.tick(1);
        const outcome = await store.getOutcome(task.taskId);
        assert.deepEqual(outcome, { result: textResult(JSON.stringify({ ended: ['fulfilled', 'fulfilled'], aborted: false, reason: null })) });
    });

    it('a stop rejects both pending sleeps at once and aborts a signal taken before it', async () => {
        const { clock, store, runtime, start } = setup([sleepy]);
        const task = await start('sleepy', {});
        await clock.tick(10);
        assert.equal(clock.pending, 3, "the store's retention timer and two sleeps");
        await runtime.cancel(CLIENT, task.taskId);
        await waitUntil(() => stops.has(task.taskId), 'the code to report its sleeps');
        assert.equal(stops.get(task.taskId), JSON.stringify({ ended: ['rejected', 'rejected'], aborted: true, reason: 'Task cancelled: Cancelled by the client' }));
        // The code returned a result after the cancel: that changes nothing.
        assert.equal((await store.get(task.taskId))?.status, 'cancelled');
        assert.equal(store.finishes.length, 1);
        assert.equal(clock.pending, 1, 'no sleep timer left behind');
        const outcome = await store.getOutcome(task.taskId);
        assert.deepEqual(outcome, { result: textResult('Task cancelled: Cancelled by the client', true) });
    });
});

const ticker = defineTool({
    name: 'ticker',
    title: 'Ticker',
    description: 'Reports `ticks` progress messages a second apart, then completes.',
    inputSchema: z.object({ ticks: z.number() }),
    taskSupport: 'required',
    async run({ ticks }, ctx) {
        for (let i = 1; i <= ticks; i++) {
            await ctx.sleep(1000);
            ctx.progress(i, ticks, `tick ${i}/${ticks}`);
        }
        return textResult('done');
    },
});

/** What the task's client receives, in order: status notifications and progress notifications. */
function followSetup() {
    const clock = new ManualClock();
    const store = new MemoryTaskStore({ clock });
    const hub = new ClientHub();
    const seen: { method: string; params: Record<string, unknown> }[] = [];
    hub.add({ identity: CLIENT, supports: () => false, notify: (method, params) => void seen.push({ method, params }), request: () => Promise.reject(new Error('no requests')) });
    const runtime = new TaskRuntime(store, new ToolRegistry([ticker]), hub, LIMITS, createLogger('error', () => undefined), 'w1', clock);
    const start = (args: Record<string, unknown>, progressToken?: string) => runtime.createTask(CLIENT, ticker, args, { progressToken });
    const progress = () => seen.filter(s => s.method === 'notifications/progress').map(s => s.params);
    const statuses = () => seen.filter(s => s.method === TASK_STATUS_METHOD).map(s => s.params.status);
    return { clock, store, runtime, seen, start, progress, statuses };
}

describe('TaskRun: progress and statusMessage in step (virtual clock)', () => {
    it('stores each progress message of a task with a progress token as its statusMessage, without a status notification per tick', async () => {
        const { clock, store, start, progress, statuses } = followSetup();
        const task = await start({ ticks: 2 }, 'tok');
        await clock.tick(1000);
        assert.deepEqual(progress().map(p => p.message), ['tick 1/2']);
        assert.equal((await store.get(task.taskId))?.statusMessage, 'tick 1/2');
        await clock.tick(1000);
        await waitUntil(() => statuses().includes('completed'), 'the completed notification');
        assert.deepEqual(progress().map(p => p.message), ['tick 1/2', 'tick 2/2']);
        assert.deepEqual(statuses(), ['completed']);
    });

    it('leaves statusMessage alone for a task nobody follows (no token, not in the background)', async () => {
        const { clock, store, start, progress } = followSetup();
        const task = await start({ ticks: 2 });
        await clock.tick(1000);
        assert.equal(progress().length, 0, 'no token, no progress notification to the client');
        assert.equal((await store.get(task.taskId))?.statusMessage, undefined);
    });

    it('tells an end the client did not ask for as the last progress, above the last value, before the terminal status; not its own cancel', async () => {
        const { clock, runtime, seen, start, progress } = followSetup();
        const cancelled = await start({ ticks: 5 }, 'own');
        const shut = await start({ ticks: 5 }, 'shut');
        await clock.tick(1000);
        await runtime.cancel(CLIENT, cancelled.taskId);
        await runtime.shutdown('Server shutting down');
        const notesOf = (token: string) => progress().filter(p => p.progressToken === token);
        assert.deepEqual(notesOf('own').map(p => p.message), ['tick 1/5']);
        const [tick, end] = notesOf('shut');
        assert.equal(end?.message, 'Server shutting down');
        assert.ok(Number(end?.progress) > Number(tick?.progress), `${String(end?.progress)} > ${String(tick?.progress)}`);
        assert.equal(end?.total, 5);
        const about = (s: (typeof seen)[number]) => s.params.taskId === shut.taskId || (s.params._meta as Record<string, { taskId?: string }> | undefined)?.[RELATED_TASK_META_KEY]?.taskId === shut.taskId;
        const order = seen.filter(about).map(s => s.method);
        assert.deepEqual(order.slice(-2), ['notifications/progress', TASK_STATUS_METHOD]);
    });
});
