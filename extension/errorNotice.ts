// The notifications that tell a person about an error in words, with the action that fixes it.
import * as vscode from 'vscode';
import { CHAT_OPEN_COMMAND, Commands, SETTINGS_SECTION } from './constants';
import { alreadyFinished, errorText } from './errorText';

/** VS Code's command that opens the Settings editor filtered to a query. */
const OPEN_SETTINGS_COMMAND = 'workbench.action.openSettings';

/** "MCP Tasks: <what failed>: <why>", or nothing for a cancel that lost the race to the task's end. */
export function showCommandError(what: string, err: unknown): void {
    void vscode.window.showErrorMessage(vscode.l10n.t({ message: 'MCP Tasks: {0}: {1}', args: [what, errorText(err)], comment: ['{0} says what failed, {1} why, in words'] }));
}

/** A Cancel that arrived after the task ended is no error: say so, quietly. */
export function showCancelOutcome(taskLabel: string, err: unknown): boolean {
    if (!alreadyFinished(err)) {
        return false;
    }
    void vscode.window.showInformationMessage(vscode.l10n.t({ message: '{0} had already finished.', args: [taskLabel], comment: ['{0} is a task'] }));
    return true;
}

/**
 * Sampling found no language model at all: a model setting cannot help (it only picks among the
 * models there are), so offer the Chat view, where VS Code sets up a model provider.
 */
export async function showNoLanguageModel(clientName: string): Promise<void> {
    const openChat = vscode.l10n.t('Open Chat');
    const choice = await vscode.window.showWarningMessage(
        vscode.l10n.t({
            message: 'MCP Tasks: no language model is available to answer {0}, so its task cannot use one. Sign in to a model provider, such as GitHub Copilot, in the Chat view.',
            args: [clientName],
            comment: ['{0} is the MCP client that asked for a model reply'],
        }),
        openChat,
    );
    if (choice === openChat) {
        await vscode.commands.executeCommand(CHAT_OPEN_COMMAND);
    }
}

/**
 * A server that is down and will not come back by itself (a failed start or restart), or settings it
 * refused: the server's reason as `message`, with Open Settings (on `setting` when the reason names
 * one), Show Log and, unless `restart` is false, Restart Server.
 */
export async function showServerProblem(message: string, setting?: string, restart = true): Promise<void> {
    const openSettings = vscode.l10n.t('Open Settings');
    const showLog = vscode.l10n.t('Show Log');
    const restartServer = vscode.l10n.t('Restart Server');
    const choice = await vscode.window.showErrorMessage(message, openSettings, showLog, ...(restart ? [restartServer] : []));
    if (choice === openSettings) {
        await vscode.commands.executeCommand(OPEN_SETTINGS_COMMAND, setting ?? SETTINGS_SECTION);
    } else if (choice === showLog) {
        await vscode.commands.executeCommand(Commands.showLog);
    } else if (choice === restartServer) {
        await vscode.commands.executeCommand(Commands.restartServer);
    }
}

/** Where the user fixes a problem: a setting (opened in the Settings editor) or a file. */
export type ProblemPlace = { setting: string } | { file: string };

/**
 * A wrapped server's entry that is wrong (`message` names it and says what is wrong): it is left
 * out and the others are served. Offers the place to fix it: the setting, or the workspace file.
 */
export function showWrapProblem(message: string, where: ProblemPlace): Promise<void> {
    return showProblemAt(
        vscode.l10n.t({ message: 'MCP Tasks does not wrap this server: {0}. The other servers are served.', args: [message], comment: ['{0} names the entry (its source and name) and what is wrong with it'] }),
        where,
    );
}

/** A problem in a setting or file, in words that say what is used instead, with the button that opens the place to fix it. */
export async function showProblemAt(message: string, where: ProblemPlace): Promise<void> {
    const open = 'setting' in where ? vscode.l10n.t('Open Settings') : vscode.l10n.t('Open File');
    const choice = await vscode.window.showErrorMessage(message, open);
    if (choice !== open) {
        return;
    }
    await ('setting' in where ? vscode.commands.executeCommand(OPEN_SETTINGS_COMMAND, where.setting) : vscode.window.showTextDocument(vscode.Uri.file(where.file)));
}
