// Issue 49 item 8: spinners follow VS Code's `workbench.reduceMotion` ("on" stops them; "auto" follows the
// operating system, which VS Code does not pass to extensions).
import { fake } from '../../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { TaskView } from '../../../../extension/tasks/taskView.js';
import { runningIcon } from '../../../../extension/views/motion.js';
import { toTreeItem } from '../../../../extension/views/taskTreeItem.js';

const running: TaskView = {
    taskId: 't1',
    status: 'working',
    createdAt: '2026-12-07T18:00:00Z',
    lastUpdatedAt: '2026-12-07T18:00:00Z',
    ttl: 3_600_000,
    toolName: 'slow_compute',
    keyArgument: 'report',
    args: { label: 'report' },
};

const icon = (view: TaskView) => (toTreeItem(view, false).iconPath as { id: string }).id;

describe('motion', () => {
    afterEach(() => fake.reset());

    it('a running row spins by default and with "auto"', () => {
        assert.equal(icon(running), 'sync~spin');
        fake.settings.reduceMotion = 'auto';
        assert.equal(icon(running), 'sync~spin');
        assert.equal(runningIcon(), 'sync~spin');
    });

    it('stands still once workbench.reduceMotion is "on": the same arrows, not spinning', () => {
        fake.settings.reduceMotion = 'on';
        assert.equal(icon(running), 'sync');
        assert.equal(runningIcon(), 'sync');
        assert.equal(icon({ ...running, status: 'completed' }), 'pass', 'other states are unchanged');
    });
});
