// What a crash cost, told once the server is gone: the same words for both transports.
import * as vscode from 'vscode';
import { Commands } from '../constants';
import { taskLabel, type TaskView } from '../tasks/taskView';

/** How many lost tasks the crash notice names. */
const LOST_NAMED = 5;

/**
 * `stopped` ("MCP Tasks server stopped unexpectedly …"), then the tasks that were lost by name,
 * with Run Again for them (each as its own new task, with the tool and arguments the owner's view
 * reported), Restart Server when nothing restarts it by itself, and Show Log.
 */
export async function showCrashNotice(stopped: string, lost: readonly TaskView[], offerRestart = false): Promise<void> {
    const message = lost.length ? `${stopped} ${lostInWords(lost)}` : stopped;
    const runAgain = vscode.l10n.t('Run Again');
    const restart = vscode.l10n.t('Restart Server');
    const showLog = vscode.l10n.t('Show Log');
    const choice = await vscode.window.showWarningMessage(message, ...(lost.length ? [runAgain] : []), ...(offerRestart ? [restart] : []), showLog);
    if (choice === showLog) {
        await vscode.commands.executeCommand(Commands.showLog);
    } else if (choice === restart) {
        await vscode.commands.executeCommand(Commands.restartServer);
    } else if (choice === runAgain) {
        for (const view of lost) {
            void vscode.commands.executeCommand(Commands.runAgain, view);
        }
    }
}

/** "2 tasks were lost: run_tests, build." (the first few by name). */
export function lostInWords(lost: readonly TaskView[]): string {
    const shown = lost.slice(0, LOST_NAMED).map(taskLabel);
    const names = lost.length > LOST_NAMED ? `${shown.join(', ')}, …` : shown.join(', ');
    return lost.length === 1
        ? vscode.l10n.t({ message: '1 task was lost: {0}.', args: [names], comment: ['{0} names the task'] })
        : vscode.l10n.t({ message: '{0} tasks were lost: {1}.', args: [lost.length, names], comment: ['{0} is a number, {1} names the tasks'] });
}
