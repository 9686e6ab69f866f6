import * as vscode from 'vscode';
import type { TaskModel } from '../tasks/taskModel';
import { taskLabel, type TaskView } from '../tasks/taskView';

/**
 * Respond on a task whose question another client asks, in its own window: the status bar says
 * so for as long as it is true. Not a notification, which would stay after the task moves on.
 */
export class WaitingNotices implements vscode.Disposable {
    private readonly shown = new Map<string, vscode.Disposable>();

    constructor(private readonly model: TaskModel) {}

    show(view: TaskView): void {
        this.shown.get(view.taskId)?.dispose();
        const waiting = () => this.model.get(view.taskId)?.status === 'input_required';
        if (!waiting()) {
            return;
        }
        const text = view.statusMessage
            ? vscode.l10n.t({ message: '{0} is waiting for an answer in the app that started it: {1}', args: [taskLabel(view), view.statusMessage], comment: ['{0} is a task, {1} the question its server asked'] })
            : vscode.l10n.t({ message: '{0} is waiting for an answer in the app that started it.', args: [taskLabel(view)], comment: ['{0} is a task'] });
        const message = vscode.window.setStatusBarMessage(`$(bell-dot) ${text}`);
        const listener = this.model.onDidChange(() => {
            if (!waiting()) {
                hide();
            }
        });
        const hide = () => {
            listener.dispose();
            message.dispose();
            if (this.shown.get(view.taskId) === notice) {
                this.shown.delete(view.taskId);
            }
        };
        const notice = { dispose: hide };
        this.shown.set(view.taskId, notice);
    }

    dispose(): void {
        for (const notice of [...this.shown.values()]) {
            notice.dispose();
        }
    }
}
