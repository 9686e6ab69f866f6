import * as vscode from 'vscode';
import { Commands } from '../constants';
import { Disposable } from '../lifecycle';
import type { TaskModel } from '../tasks/taskModel';
import type { TaskView } from '../tasks/taskView';
import type { ResultDocuments } from './resultDocuments';

/**
 * Show Output in the title bar of a shown result whose task has output (a command's log, a
 * tasks.json task's terminal): the result's way to its full log. A Markdown preview runs no
 * command: link, so the link is this button, as the preview's own "Open Source" is. The
 * context key that shows it is set in contextKeys.ts, from `hasOutput`.
 */
export class ResultOutputButton extends Disposable {
    private readonly changed = this.register(new vscode.EventEmitter<void>());
    /** The active tab changed: `hasOutput` may have. */
    readonly onDidChange = this.changed.event;

    constructor(
        private readonly results: ResultDocuments,
        private readonly model: TaskModel,
        private readonly outputOf: (view: TaskView) => boolean,
    ) {
        super();
        this.register(vscode.window.tabGroups.onDidChangeTabs(() => this.changed.fire()));
        this.register(vscode.window.tabGroups.onDidChangeTabGroups(() => this.changed.fire()));
        this.register(
            vscode.commands.registerCommand(Commands.showResultOutput, () => {
                const view = this.activeView();
                return view ? vscode.commands.executeCommand(Commands.showOutput, view) : undefined;
            }),
        );
    }

    /** Whether the active tab shows a result whose task has output. */
    get hasOutput(): boolean {
        return this.activeView() !== undefined;
    }

    private activeView(): TaskView | undefined {
        const taskId = this.results.activeTaskId();
        const view = taskId === undefined ? undefined : this.model.get(taskId);
        return view && this.outputOf(view) ? view : undefined;
    }
}
