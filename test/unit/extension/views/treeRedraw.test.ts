// The tree redraws a row only when what it shows changed: a redraw closes the tooltip under the mouse.
import '../../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { TaskModel } from '../../../../extension/tasks/taskModel.js';
import { TasksTreeProvider } from '../../../../extension/views/tasksTreeProvider.js';

const INFO = 'dev.mcp-tasks/task-info';
const START = Date.parse('2026-11-29T10:00:00.000Z');

function wire(taskId: string, status: string): Record<string, unknown> {
    return {
        taskId,
        status,
        createdAt: new Date(START).toISOString(),
        lastUpdatedAt: new Date(START).toISOString(),
        ttl: 60_000,
        _meta: { [INFO]: { toolName: 'slow_compute', args: { label: taskId }, keyArgument: taskId } },
    };
}

describe('TasksTreeProvider redraws', () => {
    let model: TaskModel;
    let tree: TasksTreeProvider;
    let fired: unknown[];

    beforeEach(() => {
        mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: START });
        model = new TaskModel();
        tree = new TasksTreeProvider(model);
        fired = [];
        // As the view does: each redraw request is followed by getTreeItem for those rows.
        tree.onDidChangeTreeData(change => {
            fired.push(change);
            for (const view of Array.isArray(change) ? change : change ? [change] : tree.getChildren()) {
                tree.getTreeItem(view);
            }
        });
    });

    afterEach(() => {
        tree.dispose();
        mock.timers.reset();
    });

    /** Draws every row as the view would, then forgets the redraw requests so far. */
    function draw(): void {
        for (const view of tree.getChildren()) {
            tree.getTreeItem(view);
        }
        fired = [];
    }

    it('the once-a-second tick redraws a running row only when its minute changes', () => {
        model.applyWire(wire('a', 'working'));
        mock.timers.tick(20);
        draw();
        const ticks: unknown[][] = [];
        tree.onDidTick(rows => ticks.push(rows));
        mock.timers.tick(58_000);
        assert.ok(ticks.length >= 57, `ticked ${ticks.length} times`);
        assert.deepEqual(fired, [], 'no redraw while the row reads "<1m"');
        mock.timers.tick(2_000);
        assert.equal(fired.length, 1, 'one redraw when it turns "1m"');
        assert.equal((fired[0] as unknown as { taskId: string }[])[0]!.taskId, 'a');
    });

    it('a notification that changes nothing visible does not redraw; a new percentage does', () => {
        const view = model.applyWire(wire('b', 'working'))!;
        mock.timers.tick(20);
        draw();
        model.applyWire({ ...wire('b', 'working'), lastUpdatedAt: new Date(START + 10).toISOString() });
        mock.timers.tick(1);
        assert.deepEqual(fired, []);
        model.applyProgress(view.taskId, { progress: 1, total: 4 });
        mock.timers.tick(1);
        assert.equal(fired.length, 1, 'redrawn for "25%"');
    });
});
