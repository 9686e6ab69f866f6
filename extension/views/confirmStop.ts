// Asks before the server is stopped under running tasks, as VS Code's Tasks asks before it
// terminates one: the one place that words that question.
import * as vscode from 'vscode';
import type { TaskModel } from '../tasks/taskModel';
import { taskLabel } from '../tasks/taskView';

/** "2 running tasks will stop: slow_compute: report, deploy: web." */
function whatStops(model: TaskModel): string {
    const running = model.running();
    const names = running.slice(0, 3).map(view => taskLabel(view));
    const more = running.length > names.length ? ` ${vscode.l10n.t('and {0} more', running.length - names.length)}` : '';
    return vscode.l10n.t({ message: '{0} running task(s) will stop: {1}.', args: [running.length, names.join(', ') + more], comment: ['{0} is a count, {1} the tasks'] });
}

/**
 * A modal question; undefined when dismissed (Escape), and when VS Code refuses to show one
 * (its extension-test host does): both mean "do not stop the work".
 */
async function ask(message: string, detail: string, ...items: vscode.MessageItem[]): Promise<vscode.MessageItem | undefined> {
    try {
        return await vscode.window.showWarningMessage(message, { modal: true, detail }, ...items);
    } catch {
        return undefined;
    }
}

/** Restart Server: true to go ahead (nothing runs, or the user said Restart). */
export async function confirmRestart(model: TaskModel): Promise<boolean> {
    if (model.running().length === 0) {
        return true;
    }
    const restart: vscode.MessageItem = { title: vscode.l10n.t('Restart') };
    const choice = await ask(vscode.l10n.t('Restart the MCP Tasks server?'), whatStops(model), restart);
    return choice === restart;
}

/**
 * A settings change that needs a new server (the transport, a server setting): resolves when it
 * may stop the current one, at once if nothing runs or the user says so, else once the running
 * tasks have ended. Waiting is the choice Escape picks: no work is lost by closing the dialog.
 */
export async function untilStopAllowed(model: TaskModel): Promise<void> {
    if (model.running().length === 0) {
        return;
    }
    const now: vscode.MessageItem = { title: vscode.l10n.t('Restart Now') };
    const later: vscode.MessageItem = { title: vscode.l10n.t('When They Finish'), isCloseAffordance: true };
    const choice = await ask(vscode.l10n.t('The new MCP Tasks settings need a server restart.'), whatStops(model), now, later);
    if (choice === now) {
        return;
    }
    await new Promise<void>(resolve => {
        const check = () => {
            if (model.running().length === 0) {
                listener.dispose();
                resolve();
            }
        };
        const listener = model.onDidChange(check);
        check();
    });
}
