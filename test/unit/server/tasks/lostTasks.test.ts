import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientHub } from '../../../../server/src/tasks/hub.js';
import { lostRecord, parseLostTasks } from '../../../../server/src/tasks/lostTasks.js';
import { MemoryTaskStore } from '../../../../server/src/tasks/memoryStore.js';
import { TaskRuntime } from '../../../../server/src/tasks/runtime.js';
import { ToolRegistry } from '../../../../server/src/tools/registry.js';
import { createLogger } from '../../../../server/src/util/log.js';
import { ManualClock } from '../../../support/manualClock.js';
import { nap } from '../../../support/napTool.js';

const LIMITS = { defaultTtlMs: 3_600_000, maxTtlMs: 86_400_000, maxTasksPerClient: 100, pollIntervalMs: 1000, maxSubtaskDepth: 4, maxChildrenPerTask: 16, abandonAfterMs: 0 };

describe('lost tasks handed to a restarted server (MCP_TASKS_LOST_TASKS)', () => {
    it('reads the id and tool of each, leaving out anything malformed', () => {
        const text = JSON.stringify([
            { taskId: 'a1b2-c3', toolName: 'slow_compute', extra: 'ignored' },
            { taskId: 'bad id with spaces', toolName: 'x' },
            { taskId: 'ok', toolName: 'bad name!' },
            'not an object',
            { taskId: 7, toolName: 'greet' },
        ]);
        assert.deepEqual(parseLostTasks(text), [{ taskId: 'a1b2-c3', toolName: 'slow_compute' }]);
        assert.deepEqual(parseLostTasks(undefined), []);
        assert.deepEqual(parseLostTasks('{not json'), []);
        assert.deepEqual(parseLostTasks('{"taskId":"a"}'), []);
    });

    it('reads a lost id as failed, naming the tool to call again, for the client that asks', () => {
        const record = lostRecord({ taskId: 't1', toolName: 'slow_compute' }, 'client-key', new Date(0));
        assert.equal(record.status, 'failed');
        assert.equal(record.clientKey, 'client-key');
        assert.match(record.statusMessage ?? '', /stopped unexpectedly.*Call slow_compute again/);
        assert.doesNotMatch(record.statusMessage ?? '', /tasks\/|-32|JSON-RPC/);
    });

    it('a lost task the store still keeps for its old session reads as lost to the reconnected client, never showing the stored result', async () => {
        const clock = new ManualClock();
        const store = new MemoryTaskStore({ clock });
        const runtime = new TaskRuntime(store, new ToolRegistry([nap]), new ClientHub(), LIMITS, createLogger('error', () => undefined), 'w1', clock);
        // The durable store took the task over from the dead server: bound to the old session's key.
        const old = { clientKey: 'old-session', isOwner: false };
        const kept = await runtime.createTask(old, nap, { ms: 1 }, {});
        await clock.tick(10);
        runtime.rememberLost([{ taskId: kept.taskId, toolName: 'nap' }]);

        const reconnected = { clientKey: 'new-session', isOwner: false };
        const seen = await runtime.get(reconnected, kept.taskId);
        assert.equal(seen.status, 'failed');
        assert.match(seen.statusMessage ?? '', /stopped unexpectedly.*Call nap again/);
        const { outcome } = await runtime.result(reconnected, kept.taskId);
        assert.match(JSON.stringify(outcome), /stopped unexpectedly/, 'the lost words, not the stored result');
        // Its own session and the owner still read the task as stored.
        assert.notEqual((await runtime.get(old, kept.taskId)).statusMessage, seen.statusMessage);
        await assert.rejects(runtime.get(reconnected, 'some-other-id'), /Task not found/);
    });
});
