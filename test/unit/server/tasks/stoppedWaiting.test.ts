/**
 * stoppedWaiting (--stopped-waiting): a task-augmented call's client that misses STOPPED_AFTER_POLLS
 * polls in a row has stopped waiting: the task is marked for the owner's view. `cancel` cancels it
 * after STOPPED_CANCEL_POLLS; `keep` keeps it marked in the owner's view (TaskInfo.stoppedWaitingAt) until --abandon-after, and clears the mark when the
 * client polls again. Virtual clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../../server/src/util/log.js';
import { ClientHub } from '../../../../server/src/tasks/hub.js';
import { MemoryTaskStore } from '../../../../server/src/tasks/memoryStore.js';
import { STOPPED_AFTER_POLLS, STOPPED_CANCEL_POLLS, TaskRuntime, type StoppedWaitingAction } from '../../../../server/src/tasks/runtime.js';
import { taskInfo } from '../../../../server/src/tasks/wire.js';
import { ToolRegistry } from '../../../../server/src/tools/registry.js';
import { ManualClock } from '../../../support/manualClock.js';
import { waitUntil } from '../../../support/wait.js';
import { nap } from '../../../support/napTool.js';

const POLL_MS = 1000;
const WINDOW_MS = STOPPED_AFTER_POLLS * POLL_MS;
const CANCEL_MS = STOPPED_CANCEL_POLLS * POLL_MS;
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
    it('cancel: the task is marked after a few missed polls and cancelled after more, not while polls come on time', async () => {
        const { clock, store, start, poll, mark } = setup('cancel');
        const task = await start();
        await poll(task.taskId, 60);
        assert.equal((await store.get(task.taskId))?.status, 'working', 'a minute of polls on time keeps it');
        assert.equal(await mark(task.taskId), undefined);
        await clock.tick(WINDOW_MS + WINDOW_MS / 10);
        assert.ok(await mark(task.taskId), 'marked once the polls stopped');
        assert.equal((await store.get(task.taskId))?.status, 'working', 'a stalled editor gets longer before the cancel');
        await clock.tick(CANCEL_MS - WINDOW_MS);
        const ended = await waitUntil(async () => ((await store.get(task.taskId))?.status === 'cancelled' ? store.get(task.taskId) : undefined), 'the task cancelled');
        assert.match(ended!.statusMessage ?? '', /stopped following it \(no tasks\/get or tasks\/result for 10 s\)/);
    });

    it('keep: marks the task, keeps it running, clears the mark when the client polls again, and leaves the end to --abandon-after', async () => {
        const { clock, store, runtime, start, mark, poll } = setup('keep');
        const task = await start();
        await poll(task.taskId, 5);
        assert.equal(await mark(task.taskId), undefined);
        await clock.tick(WINDOW_MS + WINDOW_MS / 10);
        const at = await mark(task.taskId);
        assert.ok(at && !Number.isNaN(Date.parse(at)), 'marked with the time it was noticed');
        assert.equal((await store.get(task.taskId))?.status, 'working', 'kept running');
        await runtime.get(CLIENT, task.taskId);
        assert.equal(await mark(task.taskId), undefined, 'the client waits again');
        await clock.tick(LIMITS.abandonAfterMs + LIMITS.abandonAfterMs / 10);
        assert.equal((await store.get(task.taskId))?.status, 'cancelled', 'abandoned once nobody asked for --abandon-after');
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
