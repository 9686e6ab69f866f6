/**
 * A task's end owns its cleanup: TaskRun.stop releases the task's open input requests and its
 * abandonment watch itself, however the task ends, so nothing is left behind when the store's
 * event bus delivers nothing (a shared store whose subscriber is down, say). The bus only carries
 * ends decided elsewhere. Virtual clock; a memory store whose events are not delivered.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { createLogger } from '../../../../server/src/util/log.js';
import { ClientHub } from '../../../../server/src/tasks/hub.js';
import { MemoryTaskStore } from '../../../../server/src/tasks/memoryStore.js';
import { cancelledOutcome } from '../../../../server/src/tasks/outcomes.js';
import { TaskRuntime } from '../../../../server/src/tasks/runtime.js';
import { ELSEWHERE_GRACE_MS } from '../../../../server/src/tasks/taskRun.js';
import type { Disposable, TaskEvent } from '../../../../server/src/tasks/types.js';
import { ToolRegistry } from '../../../../server/src/tools/registry.js';
import { defineTool, textResult } from '../../../../server/src/tools/types.js';
import { ManualClock } from '../../../support/manualClock.js';
import { promisesDrained, waitUntil } from '../../../support/wait.js';
import { nap } from '../../../support/napTool.js';

/** A store whose events reach no one: whatever cleanup hung on them is never done. */
class MuteStore extends MemoryTaskStore {
    override onEvent(_listener: (event: TaskEvent) => void): Disposable {
        return { dispose: () => undefined };
    }
}

const ask = defineTool({
    name: 'ask',
    title: 'Ask',
    description: 'Asks the user one question, then completes.',
    inputSchema: z.object({}),
    taskSupport: 'optional',
    async run(_args, ctx) {
        const answer = await ctx.elicit({ message: 'Go on?', requestedSchema: { type: 'object', properties: {} } });
        return textResult(`answered ${answer.action}`);
    },
});

const ABANDON_MS = 30_000;
const LIMITS = { defaultTtlMs: 3_600_000, maxTtlMs: 86_400_000, maxTasksPerClient: 100, pollIntervalMs: 1000, maxSubtaskDepth: 4, maxChildrenPerTask: 16, abandonAfterMs: ABANDON_MS };
const CLIENT = { clientKey: 'c', isOwner: false };
const STATELESS = { elicitation: {} };

function setup() {
    const clock = new ManualClock();
    const store = new MuteStore({ clock });
    const runtime = new TaskRuntime(store, new ToolRegistry([nap, ask]), new ClientHub(), LIMITS, createLogger('error', () => undefined), 'w1', clock);
    return { clock, store, runtime };
}

async function waitingForInput(runtime: TaskRuntime, taskId: string): Promise<void> {
    await waitUntil(async () => Object.keys((await runtime.inputs.open(taskId, true)).requests ?? {}).length === 1, 'the task to ask its question');
}

describe('a task’s end releases what it holds, without the event bus', () => {
    it('a cancel releases the open input requests of a 2026-07-28 client’s task', async () => {
        const { runtime } = setup();
        const task = await runtime.createTask(CLIENT, ask, {}, { capabilities2026: STATELESS });
        await waitingForInput(runtime, task.taskId);
        await runtime.cancel(CLIENT, task.taskId);
        const open = await runtime.inputs.open(task.taskId, false);
        assert.equal(open.here, false, 'this process no longer holds the cancelled task’s input requests');
        assert.equal(open.requests, undefined);
    });

    it('shutdown releases them too', async () => {
        const { runtime } = setup();
        const task = await runtime.createTask(CLIENT, ask, {}, { capabilities2026: STATELESS });
        await waitingForInput(runtime, task.taskId);
        await runtime.shutdown('test over');
        assert.equal((await runtime.inputs.open(task.taskId, false)).here, false);
    });

    it('a cancel ends the abandonment watch, and with the last watched task its sweep', async () => {
        const { clock, runtime } = setup();
        const pendingBefore = clock.pending;
        const task = await runtime.createTask(CLIENT, nap, { ms: 3_600_000 });
        assert.equal(clock.pending, pendingBefore + 3, 'the sleep, the retention and the abandonment sweep');
        await runtime.cancel(CLIENT, task.taskId);
        assert.equal(clock.pending, pendingBefore + 1, 'only the cancelled task’s retention timer: no sweep, no sleep');
    });

    it('a task that completes on its own ends its abandonment watch', async () => {
        const { clock, store, runtime } = setup();
        const task = await runtime.createTask(CLIENT, nap, { ms: 1000 });
        await clock.tick(1000);
        await waitUntil(async () => (await store.get(task.taskId))?.status === 'completed', 'the nap to complete');
        assert.equal(clock.pending, 1, 'only the completed task’s retention timer: no sweep');
    });

    it('the runtime’s dispose records the end of what still runs, through TaskRun.stop', async () => {
        const { store, runtime } = setup();
        const task = await runtime.createTask(CLIENT, ask, {}, { capabilities2026: STATELESS });
        await waitingForInput(runtime, task.taskId);
        runtime.dispose('disposed by the test');
        const ended = await waitUntil(async () => {
            const now = await store.get(task.taskId);
            return now?.status === 'cancelled' ? now : undefined;
        }, 'the task’s end to be recorded');
        assert.equal(ended.statusMessage, 'disposed by the test');
        assert.equal(runtime.runningCount, 0);
    });
});

/** Starts a nap as its sub-task and waits for it. */
const parentTool = defineTool({
    name: 'parent',
    title: 'Parent',
    description: 'Waits for one sub-task.',
    inputSchema: z.object({}),
    taskSupport: 'optional',
    async run(_args, ctx) {
        const child = await ctx.spawn('nap', { ms: 3_600_000 });
        await child.wait();
        return textResult('child done');
    },
});

describe('a task stopped because another process cancels it', () => {
    /**
     * A parent waiting on its sub-task, and another process cancelling the parent: it has cancelled
     * the child (with the cascade mark) and not yet recorded the parent. Resolves once the parent stopped here.
     */
    async function cascadeReached() {
        const clock = new ManualClock();
        const store = new MemoryTaskStore({ clock });
        const runtime = new TaskRuntime(store, new ToolRegistry([nap, parentTool]), new ClientHub(), { ...LIMITS, abandonAfterMs: 0 }, createLogger('error', () => undefined), 'w1', clock);
        const parent = await runtime.createTask(CLIENT, parentTool, {});
        const child = await waitUntil(async () => (await store.list({ clientKey: CLIENT.clientKey, parentTaskId: parent.taskId, limit: 10 })).tasks[0], 'the sub-task to start');
        const message = `Cancelled because parent task ${parent.taskId} (parent) was cancelled`;
        await store.finish(child.taskId, 'cancelled', cancelledOutcome(message, parent.taskId), message);
        await waitUntil(() => runtime.runOf(parent.taskId) === undefined, 'the parent to stop here');
        return { clock, store, parent, message };
    }

    it('leaves the runtime at once and, when that process never records its end, records it after the grace', async () => {
        // The other process died before recording the parent.
        const { clock, store, parent, message } = await cascadeReached();
        assert.equal((await store.get(parent.taskId))?.status, 'working', 'its end is left to the process cancelling it for now');
        await clock.tick(ELSEWHERE_GRACE_MS);
        const ended = await waitUntil(async () => {
            const now = await store.get(parent.taskId);
            return now?.status === 'cancelled' ? now : undefined;
        }, 'the parent’s end to be recorded here');
        assert.equal(ended.statusMessage, message);
    });

    it('records nothing itself when that process records the end', async () => {
        const { clock, store, parent } = await cascadeReached();
        // The stop's own callbacks (in-memory store, virtual clock) have set the grace timer once they ran.
        await promisesDrained();
        const waiting = clock.pending;
        assert.ok(await store.finish(parent.taskId, 'cancelled', cancelledOutcome('Cancelled by the other process'), 'Cancelled by the other process'), 'the other process’s record is the one');
        await waitUntil(() => clock.pending === waiting - 1, 'the grace timer to be cleared');
        await clock.tick(ELSEWHERE_GRACE_MS);
        assert.equal((await store.get(parent.taskId))?.statusMessage, 'Cancelled by the other process');
    });
});
