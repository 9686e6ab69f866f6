import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import { RESULT_SCHEME } from '../constants';
import { Disposable } from '../lifecycle';
import { formatResult } from '../tasks/resultText';
import type { RestoredResults, ShownResult } from './restoredResults';

/** The key of a direct call's result: never shown again once its tab closes. */
const CALL_KEY = 'call-';

/**
 * Task results, rendered: each is a read-only Markdown document (mcp-tasks-result:/<label>.md?<key>)
 * opened in VS Code's Markdown preview, whose tab reads "Preview <label>.md".
 */
export class ResultDocuments extends Disposable implements vscode.TextDocumentContentProvider {
    private readonly contents = new Map<string, string>();
    private readonly changed = this.register(new vscode.EventEmitter<vscode.Uri>());
    readonly onDidChange = this.changed.event;
    private calls = 0;
    /** The task each result file name was last shown for: the preview's tab reads "Preview <name>". */
    private readonly taskOfFile = new Map<string, string>();

    /** Restored tabs whose task was not known yet when VS Code asked: read again when the task list changes. */
    private readonly waiting = new Map<string, vscode.Uri>();

    /** `restored`: finds the result of a tab VS Code brings back after a window reload. */
    constructor(private readonly restored?: RestoredResults) {
        super();
        this.register(vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, this));
        if (restored) {
            this.register(restored.onDidChange(() => this.retryWaiting()));
        }
    }

    provideTextDocumentContent(uri: vscode.Uri): string | Promise<string> {
        const shown = this.contents.get(uri.query);
        if (shown !== undefined || !this.restored || uri.query.startsWith(CALL_KEY)) {
            return shown ?? vscode.l10n.t('This result is no longer available.');
        }
        return this.restore(uri, this.restored);
    }

    /** A tab restored after a reload: its result once its task is known again, else a line that says it waits. */
    private async restore(uri: vscode.Uri, restored: RestoredResults): Promise<string> {
        const taskId = uri.query;
        let found: ShownResult | undefined;
        try {
            found = await restored.find(taskId);
        } catch {
            // Listed, but the server has no result for it (any more): as for a result that went with its server.
            this.waiting.delete(taskId);
            return vscode.l10n.t('This result is no longer available.');
        }
        if (!found) {
            this.waiting.set(taskId, uri);
            return vscode.l10n.t('Waiting for the MCP Tasks server to list this task. The result shows here once it does; Show Result on its row opens it too.');
        }
        this.waiting.delete(taskId);
        return this.remember(taskId, found);
    }

    /** A waiting tab whose task is now listed is read again: VS Code asks (provideTextDocumentContent) and the tab shows what that finds. */
    private retryWaiting(): void {
        for (const [taskId, uri] of this.waiting) {
            if (this.restored?.isListed(taskId)) {
                this.waiting.delete(taskId);
                this.changed.fire(uri);
            }
        }
    }

    /** Shows a result; `taskId` undefined for a direct call. Returns the document's URI. */
    async show(taskId: string | undefined, title: string, status: string, result: CallToolResult, ended?: string): Promise<vscode.Uri> {
        // A direct call has no id: its key is ours alone, and never shown.
        const key = taskId ?? `${CALL_KEY}${++this.calls}`;
        this.remember(key, { title, status, result, ended }, taskId !== undefined);
        const uri = vscode.Uri.from({ scheme: RESULT_SCHEME, path: `/${fileName(title)}`, query: key });
        this.changed.fire(uri);
        // VS Code's built-in Markdown extension renders it; if a user disabled that, the text opens.
        await vscode.commands.executeCommand('markdown.showPreview', uri).then(undefined, async () => {
            await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
        });
        return uri;
    }

    /** Keeps a result's text for its tab (and the tab's file name for the task); returns the text. */
    private remember(key: string, shown: ShownResult, isTask = true): string {
        // The log opens from the preview's title bar (Show Output, see ResultOutputButton): VS Code's
        // Markdown preview posts only scheme-less links to its extension and runs no command: link.
        const text = formatResult(shown.title, isTask ? key : undefined, shown.status, shown.result, { ended: shown.ended, outputButton: isTask });
        this.contents.set(key, text);
        if (isTask) {
            this.taskOfFile.set(fileName(shown.title), key);
        }
        return text;
    }

    /** The task whose result the active tab shows (its Markdown preview, or the text when the preview is off). */
    activeTaskId(): string | undefined {
        const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
        if (!tab) {
            return undefined;
        }
        if (tab.input instanceof vscode.TabInputText) {
            return tab.input.uri.scheme === RESULT_SCHEME ? this.taskOfFile.get(tab.input.uri.path.slice(1)) : undefined;
        }
        if (!(tab.input instanceof vscode.TabInputWebview) || !/markdown\.preview/.test(tab.input.viewType)) {
            return undefined;
        }
        // A preview tab names no URI: its label ends with the document's file name.
        for (const [file, taskId] of this.taskOfFile) {
            if (tab.label.endsWith(` ${file}`)) {
                return taskId;
            }
        }
        return undefined;
    }
}

/** The label as the user knows it; only what would break the path is replaced. */
function fileName(title: string): string {
    return `${title.replace(/[/\\?#]+/g, '_')}.md`;
}
