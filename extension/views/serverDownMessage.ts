// The Tasks view's own line about a server that is down. With no rows, the view's welcome says it
// (viewsWelcome, on mcpTasks.serverProblem); with rows listed, the welcome does not show, so the
// rows from before would read as current while nothing updates them.
import * as vscode from 'vscode';
import type { TaskModel } from '../tasks/taskModel';

export interface ServerProblemSource {
    /** Why the server is down, while it is. */
    readonly problem: string | undefined;
    onDidChangeProblem(listener: (problem: string | undefined) => void): vscode.Disposable;
}

/** What the view says above its rows: nothing while the server runs (or the view is empty). */
export function serverDownMessage(problem: string | undefined, rows: number): string | undefined {
    if (problem === undefined || rows === 0) {
        return undefined;
    }
    return vscode.l10n.t({
        message: '{0}. These rows are not updated while the server is down: Restart Server (the ↻ button in this view\'s title bar) starts it again, and the log says why it stopped.',
        args: [problem.replace(/[.…]+$/, '')],
        comment: ['{0} says why the MCP Tasks server is down, in words'],
    });
}

/** Keeps `view.message` on what serverDownMessage says, as the problem and the rows change. */
export function showServerDown(view: { message?: string }, model: TaskModel, source: ServerProblemSource): vscode.Disposable {
    const update = () => {
        view.message = serverDownMessage(source.problem, model.size);
    };
    const problem = source.onDidChangeProblem(update);
    const rows = model.onDidChange(update);
    update();
    return new vscode.Disposable(() => {
        problem.dispose();
        rows.dispose();
    });
}
