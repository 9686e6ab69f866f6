import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskView } from '../../../../extension/tasks/taskView';
import { countRunning, countText, problemLabel, runningLabel } from '../../../../extension/views/statusText';

const task = (taskId: string, extra: Partial<TaskView> = {}): TaskView => ({
    taskId,
    status: 'working',
    createdAt: '2026-12-02T10:00:00.000Z',
    lastUpdatedAt: '2026-12-02T10:00:00.000Z',
    ttl: null,
    toolName: 'deploy',
    args: {},
    ...extra,
});

describe('the status bar item in words', () => {
    const deploy = task('d', { keyArgument: 'staging' });
    const build = task('b', { toolName: 'slow_compute', parentTaskId: 'd' });
    const tests = task('t', { toolName: 'slow_compute', parentTaskId: 'd' });

    it('counts a deploy and its two running sub-tasks as one task of two steps', () => {
        assert.deepEqual(countRunning([deploy, build, tests]), { tasks: 1, steps: 2, waiting: 0 });
        assert.equal(countText(countRunning([deploy, build, tests])), '1 task (2 steps)');
        assert.equal(countText(countRunning([deploy, build])), '1 task (1 step)');
        assert.equal(countText(countRunning([deploy, task('x')])), '2 tasks');
    });

    it('counts a sub-task whose parent is no longer running as a task', () => {
        assert.deepEqual(countRunning([build]), { tasks: 1, steps: 0, waiting: 0 });
    });

    it('gives a screen reader plain words: no icon names, no Markdown', () => {
        const label = runningLabel([deploy, build, tests], { ...build, progress: { progress: 2, total: 5 } });
        assert.equal(label, 'MCP Tasks: 1 task (2 steps) running, slow_compute at 40 percent');
        const waiting = runningLabel([deploy, { ...tests, status: 'input_required' }]);
        assert.equal(waiting, 'MCP Tasks: 1 task (1 step) running, 1 needs input; activate to answer');
        assert.equal(problemLabel('the port is taken'), 'MCP Tasks: the server has a problem: the port is taken. Activate to open the log.');
        for (const text of [label, waiting]) {
            assert.doesNotMatch(text, /\$\(|\*\*|`|\n/);
        }
    });
});
