import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { askUi, readyWithTasksView, uiArtifact, waitFor } from './util';

describe('sub-tasks in the sidebar', () => {
    let api: McpTasksTestApi;

    before(async () => (api = await readyWithTasksView()));

    it('nests build and test under deploy, and cancelling the parent from the tree cascades', async () => {
        const { model, tree } = api.testing;
        const since = Date.now();
        const parentId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'deploy', args: { app: 'showcase' }, mode: 'task' })) as string;
        const parent = await waitFor('the deploy task', () => model.get(parentId));
        const children = await waitFor('build and test under deploy', () => {
            const kids = tree.getChildren(parent);
            return kids.length === 2 ? kids : undefined;
        });
        assert.deepEqual(children.map(child => child.args.step).sort(), ['build', 'test']);
        assert.ok(children.every(child => child.parentTaskId === parentId));
        assert.ok(!tree.getChildren().some(row => 'taskId' in row && row.parentTaskId === parentId), 'children are not listed at the top level');
        assert.equal(tree.getTreeItem(parent).collapsibleState, vscode.TreeItemCollapsibleState.Expanded);
        // The UI driver (when there is one) photographs the nested tree before the cancel. The rows
        // are brought into view first: a tree the earlier suites filled or scrolled may hold them
        // out of sight, where the driver never finds them (a CI run waited out its 60 s so).
        await api.testing.treeView.reveal(parent, { expand: true, focus: false, select: false });
        await uiArtifact('tree-subtasks.png', since);

        await vscode.commands.executeCommand('mcpTasks.cancelTask', parent);
        await waitFor('the parent cancelled', () => parent.status === 'cancelled', 5000, 20);
        await waitFor('every child cancelled', () => children.every(child => child.status === 'cancelled'), 5000, 20);
        for (const child of children) {
            assert.match(child.statusMessage ?? '', new RegExp(`parent task ${parentId}`));
        }
    });

    it('counts a running deploy as one task of two steps in the status bar, in plain words for a screen reader', async () => {
        const { model } = api.testing;
        const parentId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'deploy', args: { app: 'status-count' }, mode: 'task' })) as string;
        const bar = api.testing.statusBar;
        try {
            await waitFor('the status bar to count one task of two steps', () => (/\b1 task \(2 steps\)/.test(bar.text) ? true : undefined), 10_000, 20);
            assert.match(bar.accessibleLabel ?? '', /^MCP Tasks: 1 task \(2 steps\) running\b/);
            assert.doesNotMatch(bar.accessibleLabel ?? '', /\$\(|\*\*|\n/, 'no icon names or Markdown');
            // The picture shows whatever step the deploy is at by the time the driver takes it.
            await askUi('ui-shot statusbar-deploy-one-task', 'statusbar-deploy-one-task.png');
        } finally {
            await vscode.commands.executeCommand('mcpTasks.cancelTask', model.get(parentId));
        }
    });
});
