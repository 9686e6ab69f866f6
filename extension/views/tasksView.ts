import * as vscode from 'vscode';
import { Views } from '../constants';
import type { TaskModel } from '../tasks/taskModel';
import type { TaskView } from '../tasks/taskView';
import { TasksTreeProvider } from './tasksTreeProvider';

export interface TasksViewParts {
    tree: TasksTreeProvider;
    treeView: vscode.TreeView<TaskView>;
}

/** The Tasks view, with a badge counting the tasks that wait for an answer. */
export function registerTasksView(context: vscode.ExtensionContext, model: TaskModel): TasksViewParts {
    const tree = new TasksTreeProvider(model);
    const treeView = vscode.window.createTreeView(Views.tasks, { treeDataProvider: tree, showCollapseAll: true });
    const badge = model.onDidChange(() => {
        const waiting = model.running().filter(view => view.status === 'input_required').length;
        treeView.badge = waiting > 0 ? { value: waiting, tooltip: vscode.l10n.t('{0} task(s) need input', waiting) } : undefined;
    });
    context.subscriptions.push(tree, treeView, badge);
    return { tree, treeView };
}
