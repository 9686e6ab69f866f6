/**
 * stoppedWaiting (--stopped-waiting): a task-augmented call's client that misses STOPPED_AFTER_POLLS
 * polls in a row has stopped waiting. `cancel` cancels the task then; `keep` marks it for the
 * owner's view (TaskInfo.stoppedWaitingAt), keeps it from abandonment, and clears the mark when the
 * client polls again. Virtual clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../../server/src/log.js';
import { ClientHub } from '../../../../server/src/tasks/hub.js';
import { MemoryTaskStore } from '../../../../server/src/tasks/memoryStore.js';
import { STOPPED_AFTER_POLLS, TaskRuntime, type StoppedWaitingAction } from '../../../../server/src/tasks/runtime.js';
import { taskInfo } from '../../../../server/src/tasks/wire.js';
import { ToolRegistry } from '../../../../server/src/tools/registry.js';
import { ManualClock, settled } from '../../../support/manualClock.js';
import { nap } from '../../../support/napTool.js';

const POLL_MS = 1000;
const WINDOW_MS = STOPPED_AFTER_POLLS * POLL_MS;
const LIMITS = { defaultTtlMs: 3_600_000, maxTtlMs: 86_400_000, maxTasksPerClient: 100, pollIntervalMs: POLL_MS, maxSubtaskDepth: 4, maxChildrenPerTask: 16, abandonAfterMs: 30_000 };
const CLIENT = { clientKey: 'c', isOwner: false };
const HOUR = 3_600_000;

function setup(stoppedWaiting: StoppedWaitingAction) {
    const clock = new ManualClock();
    const store = new MemoryTaskStore({ clock });
    const runtime = new TaskRuntime(store, new ToolRegistry([nap]), new ClientHub(), { ...LIMITS, stoppedWaiting }, createLogger('error', () => undefined), 'w1', clock);
    const start = (background = false) => runtime.createTask(CLIENT, nap, { ms: HOUR }, { background });
    const mark = async (taskId: string) => taskInfo((await store.get(taskId))!, runtime.ownerFacts).stoppedWaitingAt;
    /** Polls as VS Code does, once per poll interval. */
    const poll = async (taskId: string, times: number) => {
        for (let i = 0; i < times; i++) {
            await clock.tick(POLL_MS);
            await runtime.get(CLIENT, taskId);
        }
    };
    return { clock, store, runtime, start, mark, poll };
}

describe('a client that stops waiting (virtual clock)', () => {
    it('cancel: the task is cancelled within the window after the last poll, not while polls come on time', async () => {
        const { clock, store, start, poll } = setup('cancel');
        const task = await start();
        await poll(task.taskId, 60);
        assert.equal((await store.get(task.taskId))?.status, 'working', 'a minute of polls on time keeps it');
        await clock.tick(WINDOW_MS - POLL_MS);
        assert.equal((await store.get(task.taskId))?.status, 'working', 'still inside the window');
        await clock.tick(POLL_MS + WINDOW_MS / 10);
        const ended = await settled(async () => ((await store.get(task.taskId))?.status === 'cancelled' ? store.get(task.taskId) : undefined), 'the task cancelled');
        assert.match(ended!.statusMessage ?? '', /stopped following it \(no tasks\/get or tasks\/result for 4 s\)/);
    });

    it('keep: marks the task, keeps it past --abandon-after, and clears the mark when the client polls again', async () => {
        const { clock, store, runtime, start, mark, poll } = setup('keep');
        const task = await start();
        await poll(task.taskId, 5);
        assert.equal(await mark(task.taskId), undefined);
        await clock.tick(WINDOW_MS + WINDOW_MS / 10);
        const at = await mark(task.taskId);
        assert.ok(at && !Number.isNaN(Date.parse(at)), 'marked with the time it was noticed');
        await clock.tick(10 * LIMITS.abandonAfterMs);
        assert.equal((await store.get(task.taskId))?.status, 'working', 'kept: not abandoned');
        await runtime.get(CLIENT, task.taskId);
        assert.equal(await mark(task.taskId), undefined, 'the client waits again');
    });

    it('off, and background tasks: never marked', async () => {
        const off = setup('off');
        const offTask = await off.start();
        await off.clock.tick(2 * WINDOW_MS);
        assert.equal(await off.mark(offTask.taskId), undefined);
        const keep = setup('keep');
        const background = await keep.start(true);
        await keep.clock.tick(2 * WINDOW_MS);
        assert.equal(await keep.mark(background.taskId), undefined);
        assert.equal((await keep.store.get(background.taskId))?.status, 'working');
    });
});
