// The `when`-clause keys follow the task model, the server connection and the selected row.
import '../../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { EventEmitter } from '../../../support/fakeVscode.js';
import { TaskModel } from '../../../../extension/tasks/taskModel.js';
import { ContextKeys, ContextKeyTracker } from '../../../../extension/views/contextKeys.js';

const INFO = 'dev.mcp-tasks/task-info';

function wire(taskId: string, status: string, lastUpdatedAt = '2026-11-29T10:00:00.000Z'): Record<string, unknown> {
    return { taskId, status, createdAt: '2026-11-29T10:00:00.000Z', lastUpdatedAt, ttl: 60_000, _meta: { [INFO]: { toolName: 'slow_compute', args: {}, keyArgument: taskId } } };
}

describe('ContextKeyTracker', () => {
    let model: TaskModel;
    let sent: [string, boolean | string][];
    let server: { connected: boolean; changed: EventEmitter<boolean>; onDidChangeState: EventEmitter<boolean>['event'] };

    beforeEach(() => {
        model = new TaskModel();
        sent = [];
        const stateChanged = new EventEmitter<boolean>();
        server = { connected: false, changed: stateChanged, onDidChangeState: stateChanged.event };
    });

    const track = () => new ContextKeyTracker({ model, server }, (key, value) => sent.push([key, value]));
    const last = (key: string) => sent.filter(([k]) => k === key).at(-1)?.[1];

    it('starts with every key off', () => {
        track();
        assert.deepEqual(new Map(sent), new Map<string, boolean | string>([
            [ContextKeys.hasFinished, false],
            [ContextKeys.hasActive, false],
            [ContextKeys.needsInput, false],
            [ContextKeys.serverRunning, false],
            [ContextKeys.serverProblem, false],
            [ContextKeys.resultHasOutput, false],
        ]));
    });

    it('follows tasks through their states, and Clear Finished', () => {
        track();
        model.applyWire(wire('a', 'working'));
        assert.equal(last(ContextKeys.hasActive), true);
        assert.equal(last(ContextKeys.hasFinished), false);
        model.applyWire(wire('a', 'input_required', '2026-11-29T10:00:01.000Z'));
        assert.equal(last(ContextKeys.needsInput), true);
        model.applyWire(wire('a', 'completed', '2026-11-29T10:00:02.000Z'));
        assert.equal(last(ContextKeys.needsInput), false);
        assert.equal(last(ContextKeys.hasActive), false);
        assert.equal(last(ContextKeys.hasFinished), true);
        model.clearFinished();
        assert.equal(last(ContextKeys.hasFinished), false);
    });

    it('counts lost tasks as finished, not active', () => {
        track();
        model.applyWire(wire('a', 'working'));
        model.markLost();
        assert.equal(last(ContextKeys.hasActive), false);
        assert.equal(last(ContextKeys.hasFinished), true);
    });

    it('follows the server connection', () => {
        track();
        server.connected = true;
        server.changed.fire(true);
        assert.equal(last(ContextKeys.serverRunning), true);
        server.connected = false;
        server.changed.fire(false);
        assert.equal(last(ContextKeys.serverRunning), false);
    });

    it("offers the result's Show Output while the active tab shows a result whose task has output", () => {
        const changed = new EventEmitter<void>();
        const activeResult = { hasOutput: false, onDidChange: changed.event };
        new ContextKeyTracker({ model, server, activeResult }, (key, value) => sent.push([key, value]));
        assert.equal(last(ContextKeys.resultHasOutput), false);
        activeResult.hasOutput = true;
        changed.fire();
        assert.equal(last(ContextKeys.resultHasOutput), true);
        activeResult.hasOutput = false;
        changed.fire();
        assert.equal(last(ContextKeys.resultHasOutput), false);
    });

    it('sends a key only when its value changes', () => {
        track();
        const before = sent.length;
        model.applyWire(wire('a', 'working'));
        model.applyProgress('a', { progress: 1, total: 10 });
        model.applyProgress('a', { progress: 2, total: 10 });
        assert.deepEqual(sent.slice(before), [[ContextKeys.hasActive, true]]);
    });
});
