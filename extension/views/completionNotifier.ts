import * as vscode from 'vscode';
import { CHAT_OPEN_COMMAND, Commands } from '../constants';
import type { TaskModel } from '../tasks/taskModel';
import { OWN_CLIENT_NAME } from '../owner/ownerConnection';
import { endedInWords } from '../tasks/resultText';
import { clientKind, endingLine, isTerminal, statusText, taskLabel, type TaskView } from '../tasks/taskView';
import { continueInChatPrompt } from './continuePrompt';

/** Runs a command; tests swap in one that records what would run. */
export type CommandRunner = (command: string, ...args: unknown[]) => Thenable<unknown>;

/**
 * A task started from this editor finished while the user looked elsewhere: offer its result.
 * A task a model started in the background (start_<tool>) ended: offer to continue in chat, since
 * the chat turn that started it has moved on and nothing else tells the model.
 */
export class CompletionNotifier implements vscode.Disposable {
    private readonly subscription: { dispose(): void };
    /** What the notifier offered, newest last (the integration suite reads it). */
    readonly offered: { taskId: string; actions: string[] }[] = [];

    constructor(
        model: TaskModel,
        private readonly startedHere: Set<string>,
        private readonly view: vscode.TreeView<unknown>,
        private readonly run: CommandRunner = (command, ...args) => vscode.commands.executeCommand(command, ...args),
    ) {
        this.subscription = model.onDidChange(change => {
            for (const task of change.changed) {
                if (isTerminal(task.status)) {
                    this.ended(task);
                }
            }
        });
    }

    /** Opens the chat with a prompt that names the task and its outcome, for the user to send. */
    continueInChat(task: TaskView): Thenable<unknown> {
        // Pre-filled, not sent: the summary holds tool output, which the user should see before a model acts on it.
        return this.run(CHAT_OPEN_COMMAND, { query: continueInChatPrompt(task), isPartialQuery: true });
    }

    dispose(): void {
        this.subscription.dispose();
    }

    private ended(task: TaskView): void {
        const notice = endingNotice(task, this.startedHere.delete(task.taskId), this.view.visible && vscode.window.state.focused);
        if (notice === 'silent') {
            return;
        }
        const show = vscode.l10n.t('Show Result');
        const chat = vscode.l10n.t('Continue in Chat');
        const actions = notice === 'announce' ? [] : task.background === true && !task.parentTaskId ? [chat, show] : [show];
        this.offered.push({ taskId: task.taskId, actions });
        const notify = task.status === 'completed' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
        // How it ended in the user's words ("Cancelled by you", not the server's "Cancelled by the client"), on one line.
        const ending = endedInWords({ status: task.status, statusMessage: task.statusMessage, clientKind: clientKind(task.clientName, OWN_CLIENT_NAME), cancelledHere: false }) ?? (task.statusMessage && endingLine(task.statusMessage));
        const message = ending
            ? vscode.l10n.t({ message: 'MCP Tasks: {0} {1} — {2}', args: [taskLabel(task), statusText(task.status), ending], comment: ['{0} is a task, {1} its status (such as "completed"), {2} its final message'] })
            : vscode.l10n.t({ message: 'MCP Tasks: {0} {1}.', args: [taskLabel(task), statusText(task.status)], comment: ['{0} is a task, {1} its status (such as "completed")'] });
        void notify(message, ...actions).then(choice => {
            if (choice === show) {
                void this.run(Commands.showResult, task);
            } else if (choice === chat) {
                void this.continueInChat(task);
            }
        });
    }
}

/**
 * How a task's ending reaches the user, once (a task ends once; progress never comes here).
 * - `offer`: a notification with the result's actions: a task started here ended while the user looked
 *   elsewhere, or a model's background task ended (only a notification tells anyone).
 * - `announce`: the user is looking at the view, whose row already shows the ending and its actions;
 *   a short notification without actions still says it, since VS Code reads notifications to a screen
 *   reader and a changed row is not read (it hides by itself, having no action).
 * - `silent`: a task a model started in the foreground: its chat turn reports the ending.
 */
export function endingNotice(task: TaskView, startedHere: boolean, lookingAtView: boolean): 'offer' | 'announce' | 'silent' {
    if (task.background === true && !task.parentTaskId) {
        return 'offer';
    }
    if (!startedHere) {
        return 'silent';
    }
    return lookingAtView ? 'announce' : 'offer';
}
