import * as vscode from 'vscode';
import { Commands } from '../constants';
import type { TaskModel } from '../tasks/taskModel';
import { isTerminal, STATUS_TEXT, taskLabel } from '../tasks/taskView';

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
            const show = 'Show Result';
            const notify = task.status === 'completed' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
            void notify(`MCP Tasks: ${taskLabel(task)} ${STATUS_TEXT[task.status]}${task.statusMessage ? ` — ${task.statusMessage}` : '.'}`, show).then(choice => {
                if (choice === show) {
                    void vscode.commands.executeCommand(Commands.showResult, task);
                }
            });
        }
    });
}
