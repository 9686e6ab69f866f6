/**
 * A tool's own unpolled window (a command's maxUnpolledMs): its tasks are cancelled when nobody
 * asked about them for that long, background ones (start_<tool>) too, with no server-wide
 * --abandon-after; polls keep them. Virtual clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../../server/src/util/log.js';
import { ClientHub } from '../../../../server/src/tasks/hub.js';
import { MemoryTaskStore } from '../../../../server/src/tasks/memoryStore.js';
import { TaskRuntime } from '../../../../server/src/tasks/runtime.js';
import { ToolRegistry } from '../../../../server/src/tools/registry.js';
import { ManualClock } from '../../../support/manualClock.js';
import { waitUntil } from '../../../support/wait.js';
import { nap } from '../../../support/napTool.js';

const WINDOW_MS = 60_000;
const LIMITS = { defaultTtlMs: 3_600_000, maxTtlMs: 86_400_000, maxTasksPerClient: 100, pollIntervalMs: 1000, maxSubtaskDepth: 4, maxChildrenPerTask: 16, abandonAfterMs: 0 };
const CLIENT = { clientKey: 'c', isOwner: false };
const HOUR = 3_600_000;
const watched = { ...nap, name: 'watched_nap', maxUnpolledMs: WINDOW_MS };

function setup() {
    const clock = new ManualClock();
    const store = new MemoryTaskStore({ clock });
    const runtime = new TaskRuntime(store, new ToolRegistry([nap, watched]), new ClientHub(), LIMITS, createLogger('error', () => undefined), 'w1', clock);
    return { clock, store, runtime };
}

describe("a tool's maxUnpolled window (virtual clock)", () => {
    it('cancels a background task nobody asked about for the window, saying so', async () => {
        const { clock, store, runtime } = setup();
        const task = await runtime.createTask(CLIENT, watched, { ms: HOUR }, { background: true });
        const plain = await runtime.createTask(CLIENT, nap, { ms: HOUR }, { background: true });
        await clock.tick(WINDOW_MS - 1000);
        assert.equal((await store.get(task.taskId))?.status, 'working');
        await clock.tick(WINDOW_MS / 10 + 1000);
        const ended = await waitUntil(async () => ((await store.get(task.taskId))?.status === 'cancelled' ? store.get(task.taskId) : undefined), 'the unpolled task cancelled');
        assert.match(ended!.statusMessage ?? '', /stopped following it \(no get_task, read_output, tasks\/get or tasks\/result for 60 s\)/);
        assert.equal((await store.get(plain.taskId))?.status, 'working', 'a tool without the window runs on in the background');
    });

    it('polls (get_task and read_output read the task through the runtime) keep it', async () => {
        const { clock, store, runtime } = setup();
        const task = await runtime.createTask(CLIENT, watched, { ms: HOUR }, { background: true });
        for (let i = 0; i < 10; i++) {
            await clock.tick(WINDOW_MS / 2);
            await runtime.get(CLIENT, task.taskId);
        }
        assert.equal((await store.get(task.taskId))?.status, 'working', 'five minutes of polls every 30 s keep it');
        await clock.tick(WINDOW_MS + WINDOW_MS / 10);
        assert.equal((await store.get(task.taskId))?.status, 'cancelled');
    });
});
