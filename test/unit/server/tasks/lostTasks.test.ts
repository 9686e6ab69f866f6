import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lostRecord, parseLostTasks } from '../../../../server/src/tasks/lostTasks.js';

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
});
