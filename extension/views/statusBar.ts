import * as vscode from 'vscode';
import { Commands, RESPOND_FROM_STATUS_BAR } from '../constants';
import { Disposable } from '../lifecycle';
import type { ServerController } from '../launcher/serverController';
import type { TaskModel } from '../tasks/taskModel';
import { progressPercent, taskLabel, type TaskView } from '../tasks/taskView';
import { onDidChangeMotion, runningIcon } from './motion';
import { countRunning, countText, problemLabel, runningLabel } from './statusText';

/**
 * Hidden when idle. While tasks run: a spinner, the count and the latest progress; a task that
 * needs input turns it into a warning until answered; a server failure shows with a link to the log.
 */
export class TasksStatusBar extends Disposable {
    private readonly item: vscode.StatusBarItem;
    private latest?: TaskView;
    private serverProblem?: string;
    private scheduled = false;
    private shown = false;
    /**
     * One object for every update: VS Code registers a command with arguments anew each time a new
     * object is set, dropping the previous registration, and a click already on its way to the
     * previous one then did nothing ("Actual command not found"). The item updates on every progress tick.
     */
    private readonly respond: vscode.Command = { command: Commands.respond, title: vscode.l10n.t('Respond'), arguments: [RESPOND_FROM_STATUS_BAR] };

    constructor(private readonly model: TaskModel) {
        super();
        this.item = this.register(vscode.window.createStatusBarItem('mcpTasks.status', vscode.StatusBarAlignment.Left, 50));
        this.item.name = 'MCP Tasks';
        this.register(
            model.onDidChange(change => {
                const progressed = change.changed.filter(view => view.progress);
                if (progressed.length > 0) {
                    this.latest = progressed[progressed.length - 1];
                }
                this.schedule();
            }),
        );
        this.register(onDidChangeMotion(() => this.update()));
    }

    /** Shows a server problem (or clears it with undefined). */
    setServerProblem(message: string | undefined): void {
        this.serverProblem = message;
        this.update();
    }

    get text(): string {
        return this.item.text;
    }

    /** What a click runs. */
    get command(): string | vscode.Command | undefined {
        return this.item.command;
    }

    /** What a screen reader says for the item. */
    get accessibleLabel(): string | undefined {
        return this.item.accessibilityInformation?.label;
    }

    /** Whether the item shows (its text stays when hidden). */
    get visible(): boolean {
        return this.shown;
    }

    private schedule(): void {
        if (!this.scheduled) {
            this.scheduled = true;
            setTimeout(() => {
                this.scheduled = false;
                this.update();
            }, 0);
        }
    }

    private update(): void {
        if (this.serverProblem) {
            this.item.text = '$(error) MCP Tasks';
            this.item.tooltip = vscode.l10n.t({ message: '{0} — click to open the log', args: [this.serverProblem], comment: ['{0} describes a server problem'] });
            this.item.command = Commands.showLog;
            this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
            this.item.accessibilityInformation = { label: problemLabel(this.serverProblem) };
            this.setVisible(true);
            return;
        }
        const running = this.model.running();
        if (running.length === 0) {
            this.setVisible(false);
            return;
        }
        const counted = countRunning(running);
        const waiting = running.filter(view => view.status === 'input_required');
        const latest = this.latest && running.includes(this.latest) ? this.latest : running.find(view => view.progress);
        const percent = progressPercent(latest?.progress);
        const count = countText(counted);
        const detail =
            waiting.length > 0
                ? ` · ${vscode.l10n.t({ message: '{0} needs input', args: [waiting.length], comment: ['{0} is a number of tasks waiting for an answer'] })}`
                : latest && percent !== undefined
                  ? ` · ${latest.toolName} ${percent}%`
                  : '';
        const spinner = `$(${runningIcon()})`;
        this.item.text = `${waiting.length > 0 ? '$(bell-dot)' : spinner} ${count}${detail}`;
        this.item.backgroundColor = waiting.length > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
        // Without it a screen reader reads the text's icon names ("sync~spin") and, on hover, the tooltip's Markdown.
        this.item.accessibilityInformation = { label: runningLabel(running, latest) };
        const lines = running.map(view => {
            const p = progressPercent(view.progress);
            return `${view.status === 'input_required' ? '$(bell-dot)' : spinner} ${taskLabel(view)}${p !== undefined ? ` — ${p}%` : ''}`;
        });
        this.item.tooltip = new vscode.MarkdownString(`**MCP Tasks**\n\n${lines.join('\n\n')}\n\n_${waiting.length > 0 ? vscode.l10n.t('Click to answer.') : vscode.l10n.t('Click to show the Tasks view.')}_`, true);
        // A prompt hidden by Escape or Quick Open comes back from here, as from the row's Respond.
        this.item.command = waiting.length > 0 ? this.respond : Commands.focusTasks;
        this.setVisible(true);
    }

    private setVisible(visible: boolean): void {
        this.shown = visible;
        if (visible) {
            this.item.show();
        } else {
            this.item.hide();
        }
    }
}

/** The status bar item, showing the model's running tasks and the server's problems. */
export function registerStatusBar(context: vscode.ExtensionContext, model: TaskModel, server: ServerController): TasksStatusBar {
    const statusBar = new TasksStatusBar(model);
    context.subscriptions.push(statusBar, server.onDidChangeProblem(problem => statusBar.setServerProblem(problem)));
    return statusBar;
}
