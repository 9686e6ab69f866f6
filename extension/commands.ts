import * as vscode from 'vscode';
import type { CommandDeps } from './commandDeps';
import type { TaskModel } from './tasks/taskModel';
import { Commands, RESPOND_FROM_STATUS_BAR } from './constants';
import { showCancelOutcome, showCommandError } from './errorNotice';
import { OWN_CLIENT_NAME } from './owner/ownerConnection';
import { respondRoute } from './tasks/respondRoute';
import { isTerminal, statusText, taskLabel, UNKNOWN_TOOL, type TaskView } from './tasks/taskView';
import { runTool } from './runTool';
import { runToolPreset } from './runToolPreset';
import { confirmRestart } from './views/confirmStop';
import type { TasksRow } from './views/tasksTreeProvider';
import { isTrustNotice } from './views/trustNotice';
import { shownResult } from './views/restoredResults';
import { WaitingNotices } from './views/waitingNotice';

export type { CommandDeps, RowRun } from './commandDeps';

/** Lets a command run from the palette (no argument) by picking a task. */
async function pickTask(model: TaskModel, filter: (view: TaskView) => boolean, placeHolder: string): Promise<TaskView | undefined> {
    const candidates = model.all().filter(filter);
    if (candidates.length === 0) {
        void vscode.window.showInformationMessage(vscode.l10n.t('MCP Tasks: no matching task.'));
        return undefined;
    }
    const picked = await vscode.window.showQuickPick(
        candidates.map(view => ({ label: taskLabel(view), description: statusText(view.status), detail: view.taskId, view })),
        { placeHolder },
    );
    return picked?.view;
}

/** Asks before stopping a task from the keyboard, as the Tasks view does before it terminates one. */
async function confirmCancel(view: TaskView): Promise<boolean> {
    const cancel: vscode.MessageItem = { title: vscode.l10n.t('Cancel Task') };
    const keep: vscode.MessageItem = { title: vscode.l10n.t('Keep Running'), isCloseAffordance: true };
    const choice = await vscode.window.showWarningMessage(
        vscode.l10n.t({ message: 'Cancel task {0}?', args: [taskLabel(view)], comment: ['{0} is a task'] }),
        { modal: true, detail: vscode.l10n.t('It stops its work.') },
        cancel,
        keep,
    );
    return choice === cancel;
}

export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
    const { model, owner } = deps;
    // Tasks whose cancel the user sent from here: their result says "Cancelled by you".
    const cancelledHere = new Set<string>();
    const cancellable = (v: TaskView) => !v.lost && !isTerminal(v.status);
    // A task finished on a server that is gone still shows the result kept here, if any.
    const finished = (v: TaskView) => isTerminal(v.status);
    // A sub-task's tool is its parent's internal step: only a top-level task runs again alone; so
    // does one a crash cut short (lost while unfinished).
    const rerunnable = (v: TaskView) => (isTerminal(v.status) ? !v.lost : v.lost === true) && !v.parentTaskId;
    // The log keeps English (`logged`); the user reads `shown`, in the display language.
    const report = (logged: string, shown: string) => (err: unknown) => {
        deps.logger.scoped('commands').error(`${logged}: ${(err as Error).message}`);
        showCommandError(shown, err);
    };
    const cancel = (target: TaskView) => {
        cancelledHere.add(target.taskId);
        return owner.cancel(target.taskId).catch((err: unknown) => {
            if (!showCancelOutcome(taskLabel(target), err)) {
                report(`cannot cancel ${taskLabel(target)}`, vscode.l10n.t('cannot cancel {0}', taskLabel(target)))(err);
            }
        });
    };
    const waitingNotices = new WaitingNotices(model);
    context.subscriptions.push(waitingNotices);

    context.subscriptions.push(
        vscode.commands.registerCommand(Commands.showLog, () => deps.logger.show()),
        vscode.commands.registerCommand(Commands.restartServer, async () => {
            if (!(await confirmRestart(model))) {
                return;
            }
            try {
                await deps.server.restart();
            } catch (err) {
                // The server host has shown why, with what fixes it.
                deps.logger.scoped('commands').error(`restart failed: ${(err as Error).message}`);
                return;
            }
            void vscode.window.setStatusBarMessage(vscode.l10n.t('MCP Tasks server restarted'), 3000);
        }),
        // The row's inline button: at once (the click on that row is the choice).
        vscode.commands.registerCommand(Commands.cancelTask, async (view?: TaskView) => {
            const target = view ?? (await pickTask(model, cancellable, vscode.l10n.t('Cancel which task?')));
            if (target) {
                await cancel(target);
            }
        }),
        // The row's context menu and Delete on the focused row (package.json passes it): it asks first.
        vscode.commands.registerCommand(Commands.cancelTaskConfirm, async (given?: TasksRow | null) => {
            if (isTrustNotice(given)) {
                return;
            }
            const view = given ? (model.get(given.taskId) ?? given) : undefined;
            if (view && !cancellable(view)) {
                void vscode.window.setStatusBarMessage(vscode.l10n.t({ message: '{0} is not running: nothing to cancel.', args: [taskLabel(view)], comment: ['{0} is a task'] }), 3000);
                return;
            }
            const target = view ?? (await pickTask(model, cancellable, vscode.l10n.t('Cancel which task?')));
            if (target) {
                deps.cancelAsks?.push(target.taskId);
            }
            if (target && (await confirmCancel(target))) {
                await cancel(target);
            }
        }),
        vscode.commands.registerCommand(Commands.showResult, async (view?: TaskView) => {
            const target = view ?? (await pickTask(model, finished, vscode.l10n.t('Show the result of which task?')));
            if (!target) {
                return undefined;
            }
            if (target.lost && !owner.hasResult(target.taskId)) {
                void vscode.window.showInformationMessage(
                    vscode.l10n.t({ message: 'The result of {0} went with the server that stopped: it was not opened before.', args: [taskLabel(target)], comment: ['{0} is a task'] }),
                );
                return undefined;
            }
            try {
                const shown = await shownResult(target, taskId => owner.result(taskId), cancelledHere.has(target.taskId));
                return await deps.results.show(target.taskId, shown.title, shown.status, shown.result, shown.ended);
            } catch (err) {
                report(`cannot show the result of ${taskLabel(target)}`, vscode.l10n.t('cannot show the result of {0}', taskLabel(target)))(err);
                return undefined;
            }
        }),
        // The same tool with the same arguments, as a new task started here: a finished row's Rerun.
        vscode.commands.registerCommand(Commands.runAgain, async (view?: TaskView) => {
            // A click on a row that has just finished was meant for the button there before (Cancel).
            // (A lost row offers Run Again only in its menu and in the crash notice: no slot to mistake.)
            const ignored = view !== undefined && !view.lost && model.justChanged(view.taskId);
            if (view) {
                deps.rowRuns?.push({ taskId: view.taskId, ignored });
            }
            if (ignored) {
                deps.logger.scoped('commands').info(`Run Again on ${taskLabel(view)} ignored: the row changed state a moment ago`);
                return undefined;
            }
            const target = view ?? (await pickTask(model, rerunnable, vscode.l10n.t('Run which task again?')));
            if (!target) {
                return undefined;
            }
            if (target.toolName === UNKNOWN_TOOL) {
                // The server never said what it ran (an owner view without task info).
                void vscode.window.showInformationMessage(vscode.l10n.t({ message: 'MCP Tasks does not know which tool {0} ran, so it cannot run it again.', args: [target.taskId], comment: ['{0} is a task id'] }));
                return undefined;
            }
            return runTool(deps, { name: target.toolName, args: target.args, mode: 'task' }).catch(err => {
                report(`cannot run ${taskLabel(target)} again`, vscode.l10n.t('cannot run {0} again', taskLabel(target)))(err);
                return undefined;
            });
        }),
        vscode.commands.registerCommand(Commands.copyTaskId, async (view?: TaskView) => {
            const target = view ?? (await pickTask(model, () => true, vscode.l10n.t('Copy the id of which task?')));
            if (target) {
                await vscode.env.clipboard.writeText(target.taskId);
                void vscode.window.setStatusBarMessage(vscode.l10n.t('Copied task id {0}', target.taskId), 2000);
            }
        }),
        // Their kept results go too: clearing is how the user drops them.
        vscode.commands.registerCommand(Commands.clearFinished, () => owner.forgetResults(model.clearFinished())),
        vscode.commands.registerCommand(Commands.refresh, () => owner.reconcile()),
        // From a row, or with no argument (the status bar): the one task waiting for input, or a pick.
        vscode.commands.registerCommand(Commands.respond, async (argument?: TaskView | typeof RESPOND_FROM_STATUS_BAR) => {
            const fromStatusBar = argument === RESPOND_FROM_STATUS_BAR;
            const given = fromStatusBar ? undefined : argument;
            const waiting = (v: TaskView) => v.status === 'input_required';
            const only = model.running().filter(waiting);
            const view = given ?? (only.length === 1 ? only[0] : await pickTask(model, waiting, vscode.l10n.t('Respond to which task?')));
            if (!view) {
                return;
            }
            const prompt = deps.pendingInputs.get(view.taskId);
            // The user lands on the question wherever it is asked (see respondRoute).
            switch (respondRoute(view, prompt !== undefined, OWN_CLIENT_NAME)) {
                case 'prompt':
                    prompt!.show();
                    // The status bar item the question would hand the keyboard back to is gone once nothing
                    // waits: the keyboard goes to the task's row (or the editor) instead of the page's body.
                    if (fromStatusBar) {
                        void prompt!.settled.then(answered => answered && deps.focusAfterAnswer?.(view.taskId));
                    }
                    break;
                case 'chat':
                    await vscode.commands.executeCommand('workbench.action.chat.open');
                    break;
                case 'notifications':
                    await vscode.commands.executeCommand('notifications.showList');
                    break;
                case 'elsewhere':
                    waitingNotices.show(view);
                    break;
            }
        }),
        // A preset ({ name, args, mode }) skips the pickers: for keybindings, other extensions and tests.
        // Anything else (the title bar passes the focused row) opens the pickers.
        vscode.commands.registerCommand(Commands.runTool, (given?: unknown) =>
            runTool(deps, runToolPreset(given)).catch(err => {
                report('Run Tool failed', vscode.l10n.t('Run Tool failed'))(err);
                return undefined;
            }),
        ),
        vscode.commands.registerCommand(Commands.resetSamplingConsent, async () => {
            await deps.resetSamplingConsent();
            void vscode.window.showInformationMessage(vscode.l10n.t('MCP Tasks: language model permissions were reset; you will be asked again.'));
        }),
    );
}
