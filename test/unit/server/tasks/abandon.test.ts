/**
 * A task-augmented call's task whose client stopped following it (no tasks/get, no waiting
 * tasks/result) is cancelled after the configured window, saying so; polls, a waiting
 * tasks/result and background starts keep it alive; the owner's view does not. Virtual clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Clock } from '../../../../server/src/util/clock.js';
import { createLogger } from '../../../../server/src/util/log.js';
import { AbandonWatch } from '../../../../server/src/tasks/abandon.js';
import { ClientHub } from '../../../../server/src/tasks/hub.js';
import { MemoryTaskStore } from '../../../../server/src/tasks/memoryStore.js';
import { TaskRuntime } from '../../../../server/src/tasks/runtime.js';
import { ToolRegistry } from '../../../../server/src/tools/registry.js';
import { ManualClock } from '../../../support/manualClock.js';
import { waitUntil } from '../../../support/wait.js';
import { nap } from '../../../support/napTool.js';

const ABANDON_MS = 30_000;
const LIMITS = { defaultTtlMs: 3_600_000, maxTtlMs: 86_400_000, maxTasksPerClient: 100, pollIntervalMs: 1000, maxSubtaskDepth: 4, maxChildrenPerTask: 16, abandonAfterMs: ABANDON_MS };
const CLIENT = { clientKey: 'c', isOwner: false };
const OWNER = { clientKey: 'owner', isOwner: true };
const HOUR = 3_600_000;

function setup(abandonAfterMs = ABANDON_MS) {
    const clock = new ManualClock();
    const store = new MemoryTaskStore({ clock });
    const runtime = new TaskRuntime(store, new ToolRegistry([nap]), new ClientHub(), { ...LIMITS, abandonAfterMs }, createLogger('error', () => undefined), 'w1', clock);
    const start = (background = false, client = CLIENT) => runtime.createTask(client, nap, { ms: HOUR }, { background });
    /** `times` tasks/get calls by `caller`, one a virtual second apart. */
    const pollEverySecond = async (times: number, caller: typeof CLIENT, taskId: string) => {
        for (let i = 0; i < times; i++) {
            await clock.tick(1000);
            await runtime.get(caller, taskId);
        }
    };
    return { clock, store, runtime, start, pollEverySecond };
}

describe('abandoned tasks are cancelled (virtual clock)', () => {
    it('cancels a task nobody polled for the window, with a statusMessage that says why', async () => {
        const { clock, store, start } = setup();
        const task = await start();
        await clock.tick(ABANDON_MS - 1000);
        assert.equal((await store.get(task.taskId))?.status, 'working', 'still working inside the window');
        await clock.tick(ABANDON_MS / 10 + 1000);
        const ended = await waitUntil(async () => ((await store.get(task.taskId))?.status === 'cancelled' ? store.get(task.taskId) : undefined), 'the abandoned task cancelled');
        assert.match(ended!.statusMessage ?? '', /stopped following it \(no tasks\/get or tasks\/result for 30 s\)/);
    });

    it('keeps a task alive while its client polls at the poll interval, and cancels it once the polls stop', async () => {
        const { clock, store, start, pollEverySecond } = setup();
        const task = await start();
        await pollEverySecond(120, CLIENT, task.taskId);
        assert.equal((await store.get(task.taskId))?.status, 'working', 'two minutes of polling keep it');
        await clock.tick(ABANDON_MS + ABANDON_MS / 10);
        assert.equal((await store.get(task.taskId))?.status, 'cancelled');
    });

    it('keeps a task alive while a tasks/result waits on it', async () => {
        const { clock, store, runtime, start } = setup();
        const task = await start();
        const waiting = new AbortController();
        const result = runtime.result(CLIENT, task.taskId, waiting.signal).catch(err => err as Error);
        await clock.tick(10 * ABANDON_MS);
        assert.equal((await store.get(task.taskId))?.status, 'working');
        waiting.abort(new Error('client left'));
        await result;
        await clock.tick(ABANDON_MS + ABANDON_MS / 10);
        assert.equal((await store.get(task.taskId))?.status, 'cancelled', 'cancelled a window after the wait ended');
    });

    it("is not kept alive by the owner's view alone", async () => {
        const { store, start, pollEverySecond } = setup();
        const task = await start();
        await pollEverySecond(40, OWNER, task.taskId);
        assert.equal((await store.get(task.taskId))?.status, 'cancelled');
    });

    it('leaves background tasks and the owner’s own tasks alone', async () => {
        const { clock, store, start } = setup();
        const background = await start(true);
        const owners = await start(false, OWNER);
        await clock.tick(10 * ABANDON_MS);
        assert.equal((await store.get(background.taskId))?.status, 'working');
        assert.equal((await store.get(owners.taskId))?.status, 'working');
    });

    it('is off when abandonAfterMs is 0: no timer is set', async () => {
        const on = setup();
        await on.start();
        const { clock, store, start } = setup(0);
        const task = await start();
        assert.equal(clock.pending, on.clock.pending - 1, 'the same timers but the sweep (the sleep, the retention)');
        await clock.tick(10 * ABANDON_MS);
        assert.equal((await store.get(task.taskId))?.status, 'working');
    });

    it('stops its sweep once no watched task is left', async () => {
        const { clock, runtime, start } = setup();
        const task = await start();
        await runtime.cancel(CLIENT, task.taskId);
        await clock.tick(ABANDON_MS);
        assert.equal(clock.pending, 1, 'only the cancelled task’s retention timer: no sweep, no sleep');
    });
});

describe('a busy server does not count against a client', () => {
    /** A clock whose one interval (the sweep) the test fires, on time or late, as a loop that was free or blocked would. */
    function lateClock() {
        const at = { now: 0 };
        let sweep = (): void => undefined;
        const clock: Clock = {
            now: () => at.now,
            setTimeout: () => ({}),
            clearTimeout: () => undefined,
            setInterval: callback => ((sweep = callback), {}),
            clearInterval: () => undefined,
        };
        /** Moves time to `ms` and sweeps there. */
        const sweepAt = (ms: number) => ((at.now = ms), sweep());
        return { clock, sweepAt };
    }

    it('a sweep that comes late (the loop could not run) moves every window on by its lateness: only the time the server was free counts', () => {
        const { clock, sweepAt } = lateClock();
        const abandoned: string[] = [];
        const watch = new AbandonWatch(1000, clock, taskId => abandoned.push(taskId));
        watch.watch('t');
        assert.equal(watch.sweepMs, 100);
        sweepAt(100);
        // The loop was blocked 7.6 s: the client's polls wait unread behind it.
        sweepAt(7700);
        assert.deepEqual(abandoned, [], 'not abandoned for the time the server could not read its polls');
        for (let ms = 7800; ms <= 8400; ms += 100) {
            sweepAt(ms);
        }
        assert.deepEqual(abandoned, [], 'only the time the server was free counts: 200 ms before the block, 700 after');
        sweepAt(8500);
        assert.deepEqual(abandoned, ['t'], 'a whole window of free time with no poll: abandoned');
    });
});
