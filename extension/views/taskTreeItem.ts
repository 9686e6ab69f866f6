import * as vscode from 'vscode';
import { Commands, ContextValues } from '../constants';
import { OWN_CLIENT_NAME } from '../owner/ownerConnection';
import { endedInWords } from '../tasks/resultText';
import { clientKind, clientKindText, deniedByUser, isTerminal, rowText, statusText, stoppedWaitingText, taskLabel, type TaskView } from '../tasks/taskView';
import { runningIcon } from './motion';
import { spokenRow } from './spokenRow';

/**
 * Our own colors (package.json contributes.colors): in dark and high contrast themes they are the
 * Testing view's and the notifications' own, but VS Code's light defaults of those (green #73C991,
 * the Light 2026 theme's warning #B69500) read 1.9:1 and 2.8:1 against a light sidebar, under the
 * 3:1 an icon that carries a state needs.
 */
const ICONS: Record<Exclude<TaskView['status'], 'working'>, vscode.ThemeIcon> = {
    input_required: new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('mcpTasks.needsInputIconForeground')),
    completed: new vscode.ThemeIcon('pass', new vscode.ThemeColor('mcpTasks.completedIconForeground')),
    failed: new vscode.ThemeIcon('error', new vscode.ThemeColor('mcpTasks.failedIconForeground')),
    cancelled: new vscode.ThemeIcon('circle-slash'),
};
const LOST_ICON = new vscode.ThemeIcon('debug-disconnect', new vscode.ThemeColor('disabledForeground'));
/** The user's own Deny: their choice, not a red failure. */
const DENIED_ICON = new vscode.ThemeIcon('circle-slash');
/** Ran out of time unfinished (a question nobody answered): an ending, not a failure of the work. */
const EXPIRED_ICON = new vscode.ThemeIcon('watch', new vscode.ThemeColor('list.warningForeground'));

/**
 * The row's contextValue, which package.json's menus match: its state, plus the output facet when
 * `hasOutput` (the task runs a command, so Show Output can act). A lost finished one is
 * `task.done.lost`: Show Result reads the copy kept here. A lost one keeps the facet when its log is
 * known: the server is gone, but what the command printed before is still in the log file.
 */
export function contextValueOf(view: TaskView, hasOutput = false): string {
    const facet = hasOutput ? ContextValues.outputFacet : '';
    if (view.lost) {
        // A finished one's result may be kept here (Show Result says if not); an unfinished one can run again.
        return (isTerminal(view.status) ? ContextValues.lostFinished : ContextValues.lost) + facet;
    }
    if (view.status === 'working') {
        return ContextValues.running + facet;
    }
    if (view.status === 'input_required') {
        return ContextValues.needsInput + facet;
    }
    return (view.parentTaskId ? ContextValues.finishedStep : ContextValues.finished) + facet;
}

/**
 * `nested`: shown under its parent, whose tool says what it is (a deploy's "build" step).
 * `hasOutput`: the task runs a command with a log (see contextValueOf).
 */
export function toTreeItem(view: TaskView, hasChildren: boolean, now = Date.now(), nested = false, hasOutput = false): vscode.TreeItem {
    const text = rowText(view, now, { tool: !nested });
    const item = new vscode.TreeItem(text.label, hasChildren ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = view.taskId;
    item.description = text.description;
    item.iconPath = view.expired ? EXPIRED_ICON : deniedByUser(view) ? DENIED_ICON : view.lost ? LOST_ICON : view.status === 'working' ? new vscode.ThemeIcon(runningIcon()) : ICONS[view.status];
    item.contextValue = contextValueOf(view, hasOutput);
    item.tooltip = tooltip(view);
    // Heard as before: the tool and its argument, then the state in words ("confirm_delete: important.txt, needs input, …").
    item.accessibilityInformation = { label: spokenRow(taskLabel(view), text.described) };
    item.command = rowCommand(view);
    return item;
}

/**
 * What a click on the row runs, and Enter on it (the openRow command): a finished row's result, a
 * waiting row's question. A running row has none: there is nothing to open until it ends.
 */
export function rowCommand(view: TaskView): vscode.Command | undefined {
    if (isTerminal(view.status)) {
        return { command: Commands.showResult, title: vscode.l10n.t('Show Result'), arguments: [view] };
    }
    if (view.status === 'input_required') {
        return { command: Commands.respond, title: vscode.l10n.t('Respond'), arguments: [view] };
    }
    return undefined;
}

function tooltip(view: TaskView): vscode.MarkdownString {
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**${escape(taskLabel(view))}** — ${lostText(view)}\n\n`);
    // A cancelled task says who cancelled it as the result does ("Cancelled by you"), not the server's "by the client".
    const message = endedInWords({ status: view.status, statusMessage: view.statusMessage, clientKind: clientKind(view.clientName, OWN_CLIENT_NAME), cancelledHere: false }) ?? view.statusMessage;
    if (message) {
        // Each line of the message on its own line (a failed command's headline, its failing tests, its log), not one paragraph.
        md.appendMarkdown(`${message.split(/\r?\n/).filter(line => line.trim() !== '').map(escape).join('  \n')}\n\n`);
    }
    md.appendMarkdown(`| | |\n|---|---|\n`);
    md.appendMarkdown(`| ${vscode.l10n.t('Task id')} | \`${view.taskId}\` |\n`);
    md.appendMarkdown(`| ${vscode.l10n.t('Started by')} | ${escape(clientKindText(clientKind(view.clientName, OWN_CLIENT_NAME), view.clientName))} |\n`);
    md.appendMarkdown(`| ${vscode.l10n.t('Created')} | ${new Date(view.createdAt).toLocaleString()} |\n`);
    md.appendMarkdown(`| ${vscode.l10n.t({ message: 'Kept for', comment: ['How long the server keeps the task and its result'] })} | ${view.ttl === null ? vscode.l10n.t('unlimited') : formatTtl(view.ttl)} |\n`);
    if (view.parentTaskId) {
        md.appendMarkdown(`| ${vscode.l10n.t({ message: 'Parent', comment: ['The task that started this one'] })} | \`${view.parentTaskId}\` |\n`);
    }
    if (view.stoppedWaitingAt && !isTerminal(view.status) && !view.lost) {
        md.appendMarkdown(
            `\n_${vscode.l10n.t({ message: 'Nobody waits for its result any more: **Cancel** here stops it now.', comment: ['Markdown; "Cancel" is the button on the task\'s row'] })}_`,
        );
    } else if (!isTerminal(view.status) && !view.lost) {
        md.appendMarkdown(`\n_${vscode.l10n.t({ message: '**Cancel** here stops it now (a stopped chat request stops it only once VS Code has not asked about it for a while).', comment: ['Markdown; "Cancel" is the button on the task\'s row'] })}_`);
    }
    return md;
}

function lostText(view: TaskView): string {
    if (deniedByUser(view)) {
        return vscode.l10n.t('denied by you: you answered Deny when it asked to use a language model');
    }
    if (!view.lost) {
        return view.stoppedWaitingAt && !isTerminal(view.status) ? stoppedWaitingText(view.clientName) : statusText(view.status);
    }
    if (view.expired) {
        return view.status === 'input_required'
            ? vscode.l10n.t('expired: its question was not answered before its time ran out, so the server dropped it. Run it again to start anew.')
            : vscode.l10n.t('expired: it did not finish before its time ran out, so the server dropped it. Run it again to start anew.');
    }
    return isTerminal(view.status)
        ? vscode.l10n.t({ message: '{0} on a previous server: its result is readable if it was opened before', args: [statusText(view.status)], comment: ['{0} is a task status such as "completed"'] })
        : vscode.l10n.t('lost (the server stopped)');
}

function formatTtl(ms: number): string {
    if (ms % 3_600_000 === 0) {
        return vscode.l10n.t({ message: '{0} h', args: [ms / 3_600_000], comment: ['A duration in hours'] });
    }
    if (ms % 60_000 === 0) {
        return vscode.l10n.t({ message: '{0} min', args: [ms / 60_000], comment: ['A duration in minutes'] });
    }
    return vscode.l10n.t({ message: '{0} s', args: [Math.round(ms / 1000)], comment: ['A duration in seconds'] });
}

function escape(text: string): string {
    return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, ch => `\\${ch}`);
}
