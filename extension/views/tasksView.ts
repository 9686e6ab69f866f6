import * as vscode from 'vscode';
import { Views } from '../constants';
import type { TaskModel } from '../tasks/taskModel';
import type { TaskView } from '../tasks/taskView';
import { TasksTreeProvider, type TasksRow } from './tasksTreeProvider';
import { onDidChangeMotion, reducedMotion } from './motion';
import { showsWorkInProgress, waitingBadge } from './tasksBadge';

export interface TasksViewParts {
    tree: TasksTreeProvider;
    treeView: vscode.TreeView<TasksRow>;
}

/** The Tasks view, with a badge counting the tasks that wait for an answer. */
export function registerTasksView(context: vscode.ExtensionContext, model: TaskModel, hasOutput?: (view: TaskView) => boolean, waitingForTrust?: () => number): TasksViewParts {
    const tree = new TasksTreeProvider(model, hasOutput, waitingForTrust);
    const treeView = vscode.window.createTreeView(Views.tasks, { treeDataProvider: tree, showCollapseAll: true });
    const badge = model.onDidChange(() => {
        treeView.badge = waitingBadge(model.running());
    });
    context.subscriptions.push(tree, treeView, badge, showWorkInProgress(model));
    return { tree, treeView };
}

/**
 * The view's progress bar runs while any task does, as the Testing view's does during a run:
 * the state shows even when the rows are scrolled away or the view is collapsed. It stops while a
 * task waits for an answer, so the activity bar shows the waiting count (see showsWorkInProgress).
 */
function showWorkInProgress(model: TaskModel): vscode.Disposable {
    let finish: (() => void) | undefined;
    const update = () => {
        // The bar moves: none once the user reduces motion (the rows and the status bar still say what runs).
        const working = showsWorkInProgress(model.running()) && !reducedMotion();
        if (working && !finish) {
            const done = new Promise<void>(resolve => (finish = resolve));
            void vscode.window.withProgress({ location: { viewId: Views.tasks } }, () => done);
        } else if (!working && finish) {
            finish();
            finish = undefined;
        }
    };
    const listener = model.onDidChange(update);
    const motion = onDidChangeMotion(update);
    return { dispose: () => (listener.dispose(), motion.dispose(), finish?.()) };
}
