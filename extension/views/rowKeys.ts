// Enter and Space on the Tasks view's rows. package.json binds both with the argument VS Code's
// extension host turns into the tree's focused row: keys act on the row the keyboard is on, as in
// VS Code's own trees, never on a row selected earlier (the selection stays where a click left it).
import * as vscode from 'vscode';
import { Commands } from '../constants';
import type { TaskModel } from '../tasks/taskModel';
import { taskLabel, type TaskView } from '../tasks/taskView';
import { rowCommand } from './taskTreeItem';
import type { TasksRow } from './tasksTreeProvider';
import { isTrustNotice, MANAGE_TRUST_COMMAND } from './trustNotice';

/** VS Code's own Space in a list: select the focused row and preview what it opens (or fold a parent). */
const LIST_SPACE_COMMAND = 'list.toggleExpand';

export interface RowKeysDeps {
    model: TaskModel;
    treeView: vscode.TreeView<TasksRow>;
    /** Whether the row's task has a command's output to show. */
    hasOutput(view: TaskView): boolean;
}

export function registerRowKeys(context: vscode.ExtensionContext, { model, treeView, hasOutput }: RowKeysDeps): void {
    context.subscriptions.push(
        // Enter: what a click on the row runs; a running command's output; else why nothing opens.
        vscode.commands.registerCommand(Commands.openRow, async (row?: TasksRow | null) => {
            if (!row) {
                return undefined;
            }
            if (isTrustNotice(row)) {
                return vscode.commands.executeCommand(MANAGE_TRUST_COMMAND);
            }
            const view = model.get(row.taskId) ?? row;
            const command = rowCommand(view);
            if (command) {
                return vscode.commands.executeCommand(command.command, ...(command.arguments ?? []));
            }
            if (hasOutput(view)) {
                return vscode.commands.executeCommand(Commands.showOutput, view);
            }
            void vscode.window.setStatusBarMessage(
                view.lost
                    ? vscode.l10n.t({ message: '{0} ended with its server: Run Again is in its menu (Shift+F10).', args: [taskLabel(view)], comment: ['{0} is a task'] })
                    : vscode.l10n.t({ message: '{0} is still running: Enter opens its result once it ends, Delete cancels it.', args: [taskLabel(view)], comment: ['{0} is a task'] }),
                5000,
            );
            return undefined;
        }),
        // Space previews a row in VS Code (it runs the row's click command, keeping the focus). A question
        // cannot be previewed: it takes the focus, and the next key (Enter, meant for the row) would answer
        // it before it was read. A waiting row is only selected; Enter or a click opens its question.
        vscode.commands.registerCommand(Commands.selectRow, async (row?: TasksRow | null) => {
            const view = row && !isTrustNotice(row) ? (model.get(row.taskId) ?? row) : undefined;
            if (view?.status === 'input_required' && !model.hasChildren(view.taskId)) {
                return treeView.reveal(view, { select: true, focus: false });
            }
            return vscode.commands.executeCommand(LIST_SPACE_COMMAND);
        }),
    );
}
