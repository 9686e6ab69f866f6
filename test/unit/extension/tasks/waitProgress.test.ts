import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextProgressStep } from '../../../../extension/tasks/waitProgress.js';
import type { TaskView } from '../../../../extension/tasks/taskView.js';

const task = (extra: Partial<TaskView>): TaskView => ({
    taskId: 't1',
    status: 'working',
    createdAt: '2026-12-02T08:00:00.000Z',
    lastUpdatedAt: '2026-12-02T08:00:00.000Z',
    ttl: null,
    toolName: 'slow_compute',
    args: {},
    ...extra,
});

describe('the progress "Wait for the result" shows', () => {
    it("adds only the new part of the task's percent, with the percent and its message in words", () => {
        const first = nextProgressStep(task({ progress: { progress: 2, total: 10, message: 'step 2 of 10' } }), 0, undefined);
        assert.deepEqual(first, { step: { increment: 20, message: '20% · step 2 of 10' }, percent: 20, message: '20% · step 2 of 10' });
        const second = nextProgressStep(task({ progress: { progress: 5, total: 10, message: 'step 5 of 10' } }), 20, first?.message);
        assert.deepEqual(second?.step, { increment: 30, message: '50% · step 5 of 10' });
        assert.equal(second?.percent, 50);
    });

    it('reports nothing when what it shows would not change, and never goes back', () => {
        assert.equal(nextProgressStep(task({ progress: { progress: 5, total: 10, message: 'half' } }), 50, '50% · half'), undefined);
        const back = nextProgressStep(task({ progress: { progress: 4, total: 10, message: 'half' } }), 50, '50% · half');
        assert.equal(back?.step.increment, undefined);
        assert.equal(back?.percent, 50);
    });

    it('shows the percent alone when the task gives no words, and the status message before any progress', () => {
        assert.deepEqual(nextProgressStep(task({ progress: { progress: 6, total: 10 } }), 50, '50% · half')?.step, { increment: 10, message: '60%' });
        assert.deepEqual(nextProgressStep(task({ statusMessage: 'Starting' }), 0, undefined)?.step, { message: 'Starting' });
        assert.equal(nextProgressStep(task({ statusMessage: 'Starting' }), 0, 'Starting'), undefined);
    });

    it('says the task waits for the user while it needs input', () => {
        const step = nextProgressStep(task({ status: 'input_required', statusMessage: 'Delete it?' }), 30, 'working');
        assert.match(step?.step.message ?? '', /waiting for your answer/);
        assert.equal(step?.step.increment, undefined);
    });

    it('has nothing to add once the task has ended: the notification closes', () => {
        for (const status of ['completed', 'failed', 'cancelled'] as const) {
            assert.equal(nextProgressStep(task({ status, progress: { progress: 10, total: 10 } }), 40, undefined), undefined);
        }
    });
});
