// Which of package.json's row actions VS Code shows on each kind of Tasks row: the `when` clauses of
// view/item/context evaluated against the contextValue the tree gives the row.
import '../../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { TaskModel } from '../../../../extension/tasks/taskModel.js';
import type { TaskStatus, TaskView } from '../../../../extension/tasks/taskView.js';
import { TasksTreeProvider } from '../../../../extension/views/tasksTreeProvider.js';
import { contextValueOf } from '../../../../extension/views/taskTreeItem.js';

const manifest = JSON.parse(readFileSync(join(resolve(__dirname, '../../../..'), 'package.json'), 'utf8')) as {
    contributes: { menus: Record<string, { command: string; when?: string; group?: string }[]> };
};

/**
 * The part of VS Code's when-clause language these menus use: terms joined by `&&`, each
 * `key == value`, `key =~ /regex/`, `!key` or `key`. Anything else throws, so a menu written
 * beyond it fails here instead of going untested.
 */
function matches(when: string, context: Record<string, string | boolean>): boolean {
    return when.split('&&').every(raw => {
        const term = raw.trim();
        let m: RegExpExecArray | null;
        if ((m = /^([\w.]+) == ([\w.-]+)$/.exec(term))) {
            return context[m[1]!] === m[2];
        }
        if ((m = /^([\w.]+) =~ \/(.*)\/$/.exec(term))) {
            return new RegExp(m[2]!).test(String(context[m[1]!] ?? ''));
        }
        if ((m = /^!([\w.]+)$/.exec(term))) {
            return !context[m[1]!];
        }
        if ((m = /^([\w.]+)$/.exec(term))) {
            return term === 'true' || Boolean(context[m[1]!]);
        }
        throw new Error(`unsupported when clause term: ${term}`);
    });
}

/** The commands a row's context menu and inline buttons offer, as "command@group". */
function rowActions(contextValue: string): string[] {
    return manifest.contributes.menus['view/item/context']!.filter(item => matches(item.when ?? 'true', { view: 'mcpTasks.tasks', viewItem: contextValue })).map(
        item => `${item.command}@${item.group ?? ''}`,
    );
}

const STATUSES: TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];
const view = (status: TaskStatus, extra: Partial<TaskView> = {}): TaskView => ({
    taskId: 't',
    status,
    createdAt: '',
    lastUpdatedAt: '',
    ttl: null,
    toolName: 'run_tests',
    args: {},
    ...extra,
});
const SHOW_OUTPUT = 'mcpTasks.showOutput';

describe('row actions', () => {
    it('Show Output is offered on a command task’s row in every state, and nothing else changes there', () => {
        for (const status of STATUSES) {
            const plain = rowActions(contextValueOf(view(status)));
            const command = rowActions(contextValueOf(view(status), true));
            assert.deepEqual(command, [...plain, `${SHOW_OUTPUT}@1_task@3`].sort((a, b) => manifestOrder(a) - manifestOrder(b)), status);
        }
    });

    it('Show Output is never offered on a task that ran no command, a lost one without a log or a sub-task step', () => {
        for (const status of STATUSES) {
            assert.ok(!rowActions(contextValueOf(view(status))).some(action => action.startsWith(SHOW_OUTPUT)), status);
            assert.ok(!rowActions(contextValueOf(view(status, { lost: true }), false)).some(action => action.startsWith(SHOW_OUTPUT)), `lost ${status}`);
        }
        assert.ok(!rowActions(contextValueOf(view('completed', { parentTaskId: 'p' }))).some(action => action.startsWith(SHOW_OUTPUT)));
    });

    it('the rows keep their actions: Cancel while live, Respond when asked, Show Result and Run Again when done', () => {
        for (const output of [false, true]) {
            const actions = (status: TaskStatus) => rowActions(contextValueOf(view(status), output)).map(action => action.split('@')[0]);
            assert.ok(actions('working').includes('mcpTasks.cancelTask'), `output ${output}`);
            assert.ok(actions('input_required').includes('mcpTasks.respond') && actions('input_required').includes('mcpTasks.cancelTask'));
            for (const status of ['completed', 'failed', 'cancelled'] as const) {
                assert.ok(actions(status).includes('mcpTasks.showResult') && actions(status).includes('mcpTasks.runAgain'), `${status}, output ${output}`);
                assert.ok(!actions(status).includes('mcpTasks.cancelTask'));
            }
        }
    });

    it('a live task Copilot stopped waiting for still offers Cancel inline, for a command too', () => {
        for (const output of [false, true]) {
            const actions = rowActions(contextValueOf(view('working', { stoppedWaitingAt: '2026-12-02T08:00:00.000Z', clientName: 'Visual Studio Code' }), output));
            assert.ok(actions.some(action => action.startsWith('mcpTasks.cancelTask@inline')), `output ${output}: ${actions.join(', ')}`);
        }
    });

    it('a lost command task whose log is known offers Show Output, and keeps its other actions', () => {
        for (const status of STATUSES) {
            const plain = rowActions(contextValueOf(view(status, { lost: true })));
            const logged = rowActions(contextValueOf(view(status, { lost: true }), true));
            assert.deepEqual(logged, [...plain, `${SHOW_OUTPUT}@1_task@3`].sort((a, b) => manifestOrder(a) - manifestOrder(b)), `lost ${status}`);
        }
    });

    it('after a crash: an unfinished task offers Run Again (not Cancel), a finished one Show Result (from the copy kept here)', () => {
        const lost = rowActions(contextValueOf(view('working', { lost: true }), true));
        assert.ok(lost.includes('mcpTasks.runAgain@1_task@3') && !lost.some(action => action.startsWith('mcpTasks.cancelTask')), lost.join(', '));
        assert.ok(!lost.includes('mcpTasks.runAgain@inline@1'), 'no inline Run Again where Cancel was');
        const done = rowActions(contextValueOf(view('completed', { lost: true })));
        assert.ok(done.includes('mcpTasks.showResult@1_task@1') && !done.some(action => action.startsWith('mcpTasks.runAgain')), done.join(', '));
    });

    it('Run Again never takes the inline slot Cancel had: a second click on Cancel lands on something harmless', () => {
        /** The inline buttons as VS Code lays them out, left to right (by the order in their group). */
        const inline = (contextValue: string) =>
            rowActions(contextValue)
                .filter(action => action.includes('@inline'))
                .sort((a, b) => Number(a.split('@inline@')[1]) - Number(b.split('@inline@')[1]))
                .map(action => action.split('@')[0]);
        for (const output of [false, true]) {
            for (const live of ['working', 'input_required'] as const) {
                const before = inline(contextValueOf(view(live), output));
                // Counted from the right: rows are right-aligned, so that is where the pointer stays.
                const slot = before.length - 1 - before.indexOf('mcpTasks.cancelTask');
                for (const done of ['completed', 'failed', 'cancelled'] as const) {
                    const after = inline(contextValueOf(view(done), output));
                    assert.notEqual(after[after.length - 1 - slot], 'mcpTasks.runAgain', `${live} → ${done}, output ${output}: ${after.join(', ')}`);
                }
            }
        }
    });

    it('the palette never offers Show Output (it acts on a row)', () => {
        assert.equal(manifest.contributes.menus.commandPalette!.find(item => item.command === SHOW_OUTPUT)?.when, 'false');
    });

    it('the tree gives a command task’s row the output facet, from the predicate it is built with', () => {
        const model = new TaskModel();
        const tree = new TasksTreeProvider(model, task => task.toolName === 'run_tests');
        try {
            const wire = (taskId: string, toolName: string) => ({ taskId, status: 'working', _meta: { 'dev.mcp-tasks/task-info': { toolName, args: {} } } });
            const command = model.applyWire(wire('a', 'run_tests'))!;
            const demo = model.applyWire(wire('b', 'slow_compute'))!;
            assert.equal(tree.getTreeItem(command).contextValue, 'task.running.output');
            assert.equal(tree.getTreeItem(demo).contextValue, 'task.running');
        } finally {
            tree.dispose();
        }
    });
});

/** An action's position in package.json's list, which is the order rowActions returns. */
function manifestOrder(action: string): number {
    return manifest.contributes.menus['view/item/context']!.findIndex(item => `${item.command}@${item.group ?? ''}` === action);
}
