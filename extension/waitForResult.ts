import * as vscode from 'vscode';
import type { CommandDeps } from './commandDeps';
import { Commands } from './constants';
import { nextProgressStep } from './tasks/waitProgress';
import { isTerminal, type TaskView } from './tasks/taskView';

/**
 * Run Tool's "Wait for the result" for a tool that can run as a task: it runs as one (so its row is
 * in the Tasks view like every other), and a progress notification follows it with the task's own
 * percent and message. The notification's Cancel cancels the task, as the row's Cancel does (its
 * result then says "Cancelled by you"); the result opens when the task ends any other way.
 */
export async function waitForTask(deps: Pick<CommandDeps, 'owner' | 'model'>, toolName: string, title: string, args: Record<string, unknown>): Promise<string> {
    const taskId = await deps.owner.startTask(toolName, args);
    const ended = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Running {0}…', title), cancellable: true },
        (progress, token) =>
            new Promise<TaskView | undefined>(resolve => {
                let percent = 0;
                let message: string | undefined;
                const finish = (view: TaskView | undefined) => {
                    listener.dispose();
                    cancelled.dispose();
                    resolve(view);
                };
                const update = () => {
                    const view = deps.model.get(taskId);
                    if (!view) {
                        return;
                    }
                    if (view.lost || isTerminal(view.status)) {
                        finish(view.lost ? undefined : view);
                        return;
                    }
                    const next = nextProgressStep(view, percent, message);
                    if (next) {
                        progress.report(next.step);
                        ({ percent, message } = next);
                    }
                };
                const listener = deps.model.onDidChange(update);
                const cancelled = token.onCancellationRequested(() => {
                    const view = deps.model.get(taskId);
                    finish(undefined);
                    // The sidebar's own Cancel (no question: the user just pressed Cancel on this run).
                    if (view && !isTerminal(view.status)) {
                        void vscode.commands.executeCommand(Commands.cancelTask, view);
                    }
                });
                update();
            }),
    );
    if (ended) {
        await vscode.commands.executeCommand(Commands.showResult, ended);
    }
    return taskId;
}

/** "Wait for the result" for a tool that runs only directly: Cancel stops waiting and tells the server (notifications/cancelled). */
export async function waitForCall(deps: Pick<CommandDeps, 'owner' | 'results'>, toolName: string, title: string, label: string, args: Record<string, unknown>, statusOf: (isError: boolean) => string): Promise<void> {
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Running {0}…', title), cancellable: true }, async (_progress, token) => {
        const abort = new AbortController();
        const listener = token.onCancellationRequested(() => abort.abort(new vscode.CancellationError()));
        try {
            return await deps.owner.callTool(toolName, args, abort.signal);
        } catch (err) {
            if (err instanceof vscode.CancellationError) {
                return undefined;
            }
            throw err;
        } finally {
            listener.dispose();
        }
    });
    if (result) {
        await deps.results.show(undefined, label, statusOf(result.isError === true), result);
    }
}
