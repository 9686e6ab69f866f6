// A result tab VS Code restores after a window reload finds its result again (issue 46 item 9).
import '../../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TaskModel } from '../../../../extension/tasks/taskModel.js';
import { RestoredResults } from '../../../../extension/views/restoredResults.js';

const INFO = 'dev.mcp-tasks/task-info';
const RESULT: CallToolResult = { content: [{ type: 'text', text: 'Result: 42.' }] };

function wire(taskId: string, status: string): Record<string, unknown> {
    return { taskId, status, createdAt: '2026-12-07T10:00:00.000Z', lastUpdatedAt: '2026-12-07T10:00:01.000Z', ttl: 60_000, _meta: { [INFO]: { toolName: 'slow_compute', args: {}, keyArgument: 'restored' } } };
}

describe('a restored result tab', () => {
    let model: TaskModel;
    let started: number;
    let kept: Set<string>;
    let restored: RestoredResults;

    beforeEach(() => {
        model = new TaskModel();
        started = 0;
        kept = new Set();
        restored = new RestoredResults({
            model,
            owner: { hasResult: taskId => kept.has(taskId), result: () => Promise.resolve(RESULT) },
            ready: () => {
                started++;
                return Promise.resolve();
            },
        });
    });

    afterEach(() => mock.timers.reset());

    it('reads the copy kept here at once, without starting the server', async () => {
        kept.add('t1');
        model.applyWire(wire('t1', 'completed'));
        const found = await restored.find('t1');
        assert.deepEqual(found, { title: 'slow_compute: restored', status: 'completed', result: RESULT, ended: undefined });
        assert.equal(started, 0);
    });

    it('with no kept copy, starts the server and answers once its list has the finished task', async () => {
        const finding = restored.find('t2');
        model.applyWire(wire('t2', 'working'));
        assert.equal(restored.isListed('t2'), false, 'running: no result yet');
        model.applyWire(wire('t2', 'completed'));
        const found = await finding;
        assert.equal(found?.title, 'slow_compute: restored');
        assert.equal(found?.result, RESULT);
        assert.equal(started, 1);
        assert.equal(restored.isListed('t2'), true);
    });

    it('a task the server never lists: no result after the wait (the tab says it waits, and is read again when the list changes)', async () => {
        mock.timers.enable({ apis: ['setTimeout'] });
        const finding = restored.find('t3');
        await Promise.resolve();
        await Promise.resolve();
        mock.timers.tick(20_000);
        assert.equal(await finding, undefined);
        let heard = 0;
        const subscription = restored.onDidChange(() => heard++);
        model.applyWire(wire('t3', 'completed'));
        subscription.dispose();
        assert.equal(heard, 1);
        assert.equal(restored.isListed('t3'), true);
    });
});
