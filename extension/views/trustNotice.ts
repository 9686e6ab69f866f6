import * as vscode from 'vscode';

/** VS Code's own command that opens the Workspace Trust editor. */
export const MANAGE_TRUST_COMMAND = 'workbench.trust.manage';

/**
 * The Tasks view's first row in Restricted Mode: how many of the workspace's commands wait for
 * trust, and a click that opens the Workspace Trust editor. Not a task: no task command takes it.
 */
export interface TrustNotice {
    readonly kind: 'trustNotice';
    readonly count: number;
}

export function isTrustNotice(row: unknown): row is TrustNotice {
    return typeof row === 'object' && row !== null && (row as Partial<TrustNotice>).kind === 'trustNotice';
}

/** "1 command waits…" / "3 commands wait…": short enough for the default sidebar; the row and the Run Tool picker share them. */
export function waitingForTrustText(count: number): string {
    return count === 1 ? vscode.l10n.t('1 command waits for trust') : vscode.l10n.t({ message: '{0} commands wait for trust', args: [count], comment: ['{0} is a number above 1'] });
}

export function trustNoticeItem(notice: TrustNotice): vscode.TreeItem {
    const item = new vscode.TreeItem(waitingForTrustText(notice.count), vscode.TreeItemCollapsibleState.None);
    item.id = 'mcpTasks.trustNotice';
    item.description = vscode.l10n.t('Restricted Mode');
    item.iconPath = new vscode.ThemeIcon('shield');
    item.contextValue = 'trustNotice';
    // Read aloud whole: the row, what it is about, and what a click does.
    item.accessibilityInformation = { label: `${String(item.label)}, ${item.description}. ${vscode.l10n.t('Manage Workspace Trust')}` };
    item.tooltip = vscode.l10n.t('This workspace declares commands (its settings, .vscode/mcp-tasks.json, tasks.json tasks it exposes) that run only once you trust it. Click to manage workspace trust.');
    item.command = { command: MANAGE_TRUST_COMMAND, title: vscode.l10n.t('Manage Workspace Trust') };
    return item;
}
