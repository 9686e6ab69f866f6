// The notifications that tell a person about an error in words, with the action that fixes it.
import * as vscode from 'vscode';
import { SETTINGS_SECTION, Settings } from './constants';
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

/** Sampling found no language model: say so, and offer the setting that picks one. */
export async function showNoLanguageModel(clientName: string): Promise<void> {
    const choose = vscode.l10n.t('Choose a Model');
    const choice = await vscode.window.showWarningMessage(
        vscode.l10n.t({ message: 'MCP Tasks: no language model is available to answer {0}, so its task cannot use one.', args: [clientName], comment: ['{0} is the MCP client that asked for a model reply'] }),
        choose,
    );
    if (choice === choose) {
        await vscode.commands.executeCommand(OPEN_SETTINGS_COMMAND, `${SETTINGS_SECTION}.${Settings.samplingModel}`);
    }
}
