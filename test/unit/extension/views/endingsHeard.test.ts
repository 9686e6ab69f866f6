// Issue 49 item 4: "needs input" reaches the activity bar (a number badge named in words, not hidden
// by the progress spinner), and a task's ending is said once even while the Tasks view is on screen.
import '../../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskStatus, TaskView } from '../../../../extension/tasks/taskView.js';
import { endingNotice } from '../../../../extension/views/completionNotifier.js';
import { showsWorkInProgress, waitingBadge } from '../../../../extension/views/tasksBadge.js';

function task(status: TaskStatus, extra: Partial<TaskView> = {}): TaskView {
    return { taskId: `t-${status}-${Math.random()}`, toolName: 'slow_compute', status, createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:01Z', ...extra } as TaskView;
}

describe('the activity bar badge', () => {
    it('counts the tasks waiting for an answer, named as a sentence', () => {
        assert.deepEqual(waitingBadge([task('input_required'), task('working')]), { value: 1, tooltip: '1 task needs your answer' });
        assert.deepEqual(waitingBadge([task('input_required'), task('input_required')]), { value: 2, tooltip: '2 tasks need your answer' });
    });

    it('shows no badge when nothing waits', () => {
        assert.equal(waitingBadge([task('working')]), undefined);
        assert.equal(waitingBadge([]), undefined);
    });

    it('shows work in progress only while tasks run and none waits, so the spinner never hides the count', () => {
        assert.equal(showsWorkInProgress([task('working')]), true);
        assert.equal(showsWorkInProgress([task('working'), task('input_required')]), false);
        assert.equal(showsWorkInProgress([]), false);
    });
});

describe('a task ending', () => {
    it('is said without actions while the user looks at the view, and offered with them otherwise', () => {
        assert.equal(endingNotice(task('failed'), true, true), 'announce');
        assert.equal(endingNotice(task('completed'), true, true), 'announce');
        assert.equal(endingNotice(task('completed'), true, false), 'offer');
    });

    it('stays silent for a task a model started in the foreground, whose chat turn reports it', () => {
        assert.equal(endingNotice(task('failed'), false, true), 'silent');
        assert.equal(endingNotice(task('failed'), false, false), 'silent');
    });

    it('is offered for a model’s background task, visible view or not', () => {
        assert.equal(endingNotice(task('completed', { background: true }), false, true), 'offer');
        assert.equal(endingNotice(task('completed', { background: true, parentTaskId: 'p' }), false, false), 'silent');
    });
});
