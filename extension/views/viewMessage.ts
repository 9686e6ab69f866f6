// What the Tasks view says above its rows, or in their place.
//
// With rows listed and the server down, the rows from before would read as current while nothing
// updates them: the message says so. With no rows, the view's welcome (viewsWelcome, with buttons)
// speaks until the view has listed a task in this window. After that, an empty view says it in a
// message instead: VS Code removes a welcome the moment rows arrive, and a keyboard on one of its
// buttons fell to the page body, while a view that shows only a message keeps the focus and VS Code
// moves it onto the rows when they come (issue 49 item 3). The welcome's buttons are all in the
// view's title bar too, which the message names.
import * as vscode from 'vscode';
import type { TaskModel } from '../tasks/taskModel';

export interface ServerProblemSource {
    /** Why the server is down, while it is. */
    readonly problem: string | undefined;
    onDidChangeProblem(listener: (problem: string | undefined) => void): vscode.Disposable;
}

/**
 * What the view says: `problem`, why the server is down (undefined while it runs); `rows`, how many
 * tasks it lists; `hadRows`, whether it has listed any in this window (before, its welcome speaks).
 */
export function viewMessage(problem: string | undefined, rows: number, hadRows: boolean): string | undefined {
    const reason = problem?.replace(/[.…]+$/, '');
    if (rows > 0) {
        return reason === undefined
            ? undefined
            : vscode.l10n.t({
                  message: "{0}. These rows are not updated while the server is down: Restart Server (the ↻ button in this view's title bar) starts it again, and the log says why it stopped.",
                  args: [reason],
                  comment: ['{0} says why the MCP Tasks server is down, in words'],
              });
    }
    if (!hadRows) {
        return undefined;
    }
    return reason === undefined
        ? vscode.l10n.t("No tasks now. Tasks that Copilot agent mode, other MCP clients or you start on the MCP Tasks server appear here: Run Tool… (the ▷ button in this view's title bar) starts one.")
        : vscode.l10n.t({
              message: "{0}. Copilot cannot use its tools until it runs again: Restart Server (the ↻ button in this view's title bar) starts it, and the log says why it stopped.",
              args: [reason],
              comment: ['{0} says why the MCP Tasks server is down, in words'],
          });
}

/**
 * Keeps `view.message` on what viewMessage says, as the problem and the rows change. `listed`: the
 * tasks VS Code was last handed as the view's rows. An emptied view's message goes only once VS Code
 * has its rows: taken away first, it left an empty view without a message, which VS Code filled with
 * the welcome for a moment, and the keyboard in the view went with it (the message itself comes at
 * once, before the rows go, for the same reason).
 */
export function showViewMessage(view: { message?: string; readonly visible: boolean }, model: TaskModel, source: ServerProblemSource, listed: vscode.Event<number>): vscode.Disposable {
    let hadRows = false;
    let drawn = 0;
    const update = () => {
        const rows = model.size === 0 ? 0 : view.visible ? drawn : model.size;
        hadRows ||= rows > 0;
        // Every model change comes here, progress ticks included: VS Code is told only of a new message.
        const message = viewMessage(source.problem, rows, hadRows);
        if (message !== view.message) {
            view.message = message;
        }
    };
    let later: NodeJS.Timeout | undefined;
    const lists = listed(count => {
        // After VS Code has the rows: the answer to its request goes out before this.
        clearTimeout(later);
        later = setTimeout(() => {
            drawn = count;
            update();
        }, 0);
    });
    const problem = source.onDidChangeProblem(update);
    const rows = model.onDidChange(update);
    update();
    return new vscode.Disposable(() => {
        clearTimeout(later);
        lists.dispose();
        problem.dispose();
        rows.dispose();
    });
}
