// Enter and Space get the focused row from VS Code (package.json's $focusedTreeItem argument).
import { fake } from '../../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { Commands } from '../../../../extension/constants.js';
import { TaskModel } from '../../../../extension/tasks/taskModel.js';
import type { TaskView } from '../../../../extension/tasks/taskView.js';
import { registerRowKeys } from '../../../../extension/views/rowKeys.js';

const INFO = 'dev.mcp-tasks/task-info';

function wire(taskId: string, status: string, toolName = 'slow_compute'): Record<string, unknown> {
    const at = '2026-12-07T10:00:00.000Z';
    return { taskId, status, createdAt: at, lastUpdatedAt: at, ttl: 60_000, _meta: { [INFO]: { toolName, args: {}, keyArgument: taskId } } };
}

describe('Enter and Space on the focused row', () => {
    let model: TaskModel;
    let revealed: { row: unknown; options: unknown }[];
    let withOutput: Set<string>;

    beforeEach(() => {
        fake.reset();
        model = new TaskModel();
        revealed = [];
        withOutput = new Set();
        const treeView = { reveal: (row: unknown, options: unknown) => (revealed.push({ row, options }), Promise.resolve()) };
        registerRowKeys({ subscriptions: [] } as never, { model, treeView: treeView as never, hasOutput: (view: TaskView) => withOutput.has(view.taskId) });
    });

    const run = (command: string, row: unknown) => fake.registered.get(command)!(row);
    const ran = () => fake.commands.map(c => `${c.id} ${(c.args[0] as TaskView | undefined)?.taskId ?? ''}`.trim());

    it("Enter runs the row's own click: a finished row's result, a waiting row's question, read fresh from the model", async () => {
        const snapshot = model.applyWire(wire('a', 'working'))!;
        model.applyWire({ ...wire('a', 'completed'), lastUpdatedAt: '2026-12-07T10:00:01.000Z' });
        await run(Commands.openRow, snapshot);
        await run(Commands.openRow, model.applyWire(wire('q', 'input_required')));
        assert.deepEqual(ran(), ['mcpTasks.showResult a', 'mcpTasks.respond q']);
    });

    it("Enter on a running command opens its output; on another running row it says why nothing opens", async () => {
        withOutput.add('build');
        await run(Commands.openRow, model.applyWire(wire('build', 'working', 'npm_build')));
        await run(Commands.openRow, model.applyWire(wire('slow', 'working')));
        assert.deepEqual(ran(), ['mcpTasks.showOutput build']);
        assert.deepEqual(fake.messages.map(m => m.message), ['slow_compute: slow is still running: Enter opens its result once it ends, Delete cancels it.']);
    });

    it('Enter on the Restricted Mode notice opens Workspace Trust; with no row it does nothing', async () => {
        await run(Commands.openRow, { kind: 'trustNotice', count: 1 });
        await run(Commands.openRow, undefined);
        assert.deepEqual(ran(), ['workbench.trust.manage']);
    });

    it("Space on a waiting row only selects it (its question would take the next key); elsewhere it is VS Code's Space", async () => {
        const waiting = model.applyWire(wire('q', 'input_required'))!;
        await run(Commands.selectRow, waiting);
        assert.deepEqual(revealed, [{ row: waiting, options: { select: true, focus: false } }]);
        assert.deepEqual(ran(), [], 'no question opened');
        await run(Commands.selectRow, model.applyWire(wire('done', 'completed')));
        assert.deepEqual(ran(), ['list.toggleExpand']);
    });
});
