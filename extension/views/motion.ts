// Whether the Tasks view and the status bar animate. VS Code's `workbench.reduceMotion` set to "on"
// stops their spinners and the view's progress bar, as it stops VS Code's own. ("auto" follows the
// operating system's setting, which VS Code does not pass to extensions: they keep animating then.)
import * as vscode from 'vscode';

export function reducedMotion(): boolean {
    return vscode.workspace.getConfiguration('workbench').get<string>('reduceMotion', 'auto') === 'on';
}

/** The codicon of a running task: a spinner, or the same arrows standing still. */
export function runningIcon(): string {
    return reducedMotion() ? 'sync' : 'sync~spin';
}

export function onDidChangeMotion(listener: () => void): vscode.Disposable {
    return vscode.workspace.onDidChangeConfiguration(event => {
        if (event.affectsConfiguration('workbench.reduceMotion')) {
            listener();
        }
    });
}
