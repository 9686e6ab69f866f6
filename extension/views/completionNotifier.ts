import * as vscode from 'vscode';
import { Commands } from '../constants';
import type { TaskModel } from '../tasks/taskModel';
import { isTerminal, statusText, taskLabel } from '../tasks/taskView';

/** A task started from this editor finished while the user looked elsewhere: offer its result. */
export function notifyCompletions(model: TaskModel, startedHere: Set<string>, view: vscode.TreeView<unknown>): vscode.Disposable {
    return model.onDidChange(change => {
        for (const task of change.changed) {
            if (!startedHere.has(task.taskId) || !isTerminal(task.status)) {
                continue;
            }
            startedHere.delete(task.taskId);
            if (view.visible && vscode.window.state.focused) {
                continue;
            }
            const show = vscode.l10n.t('Show Result');
            const notify = task.status === 'completed' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
            const args = [taskLabel(task), statusText(task.status), task.statusMessage ?? ''];
            const message = task.statusMessage
                ? vscode.l10n.t({ message: 'MCP Tasks: {0} {1} — {2}', args, comment: ['{0} is a task, {1} its status (such as "completed"), {2} its final message'] })
                : vscode.l10n.t({ message: 'MCP Tasks: {0} {1}.', args, comment: ['{0} is a task, {1} its status (such as "completed")'] });
            void notify(message, show).then(choice => {
                if (choice === show) {
                    void vscode.commands.executeCommand(Commands.showResult, task);
                }
            });
        }
    });
}
