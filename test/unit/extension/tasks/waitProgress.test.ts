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

const RUNNING = 'running (the MCP Tasks view shows its progress)';

describe('the progress "Wait for the result" shows', () => {
    it('adds only the new part of the percent to the bar, and says it runs once, not per progress tick', () => {
        const first = nextProgressStep(task({ progress: { progress: 2, total: 10, message: 'step 2 of 10' } }), 0, undefined);
        assert.deepEqual(first, { step: { increment: 20, message: RUNNING }, percent: 20, message: RUNNING });
        const second = nextProgressStep(task({ progress: { progress: 5, total: 10, message: 'step 5 of 10' } }), 20, first?.message);
        assert.deepEqual(second?.step, { increment: 30 }, 'the words stay: a screen reader does not read the notification again');
        assert.equal(second?.percent, 50);
    });

    it('reports nothing when the bar would not move and the state is the same, and never goes back', () => {
        assert.equal(nextProgressStep(task({ progress: { progress: 5, total: 10, message: 'half' } }), 50, RUNNING), undefined);
        assert.equal(nextProgressStep(task({ progress: { progress: 5, total: 10, message: 'other words' } }), 50, RUNNING), undefined);
        const back = nextProgressStep(task({ progress: { progress: 4, total: 10, message: 'half' } }), 50, 'waiting');
        assert.equal(back?.step.increment, undefined);
        assert.equal(back?.percent, 50);
    });

    it('counts the announcements of a run: one per state, however many progress ticks', () => {
        let percent = 0;
        let message: string | undefined;
        const messages: string[] = [];
        const ticks = [...Array.from({ length: 12 }, (_, i) => task({ progress: { progress: i, total: 24, message: `line ${i}` } })), task({ status: 'input_required' }), ...Array.from({ length: 12 }, (_, i) => task({ progress: { progress: 12 + i, total: 24, message: `line ${12 + i}` } }))];
        for (const view of ticks) {
            const next = nextProgressStep(view, percent, message);
            if (next?.step.message) {
                messages.push(next.step.message);
            }
            ({ percent, message } = next ?? { percent, message });
        }
        assert.deepEqual(messages, [RUNNING, 'waiting for your answer (Respond in the MCP Tasks view)', RUNNING]);
        assert.equal(percent, 96);
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
