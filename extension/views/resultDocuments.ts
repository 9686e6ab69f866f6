import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import { RESULT_SCHEME } from '../constants';
import { Disposable } from '../lifecycle';
import { formatResult } from '../tasks/resultText';

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

    constructor() {
        super();
        this.register(vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, this));
    }

    provideTextDocumentContent(uri: vscode.Uri): string {
        return this.contents.get(uri.query) ?? vscode.l10n.t('This result is no longer available.');
    }

    /** Shows a result; `taskId` undefined for a direct call. Returns the document's URI. */
    async show(taskId: string | undefined, title: string, status: string, result: CallToolResult, ended?: string): Promise<vscode.Uri> {
        // A direct call has no id: its key is ours alone, and never shown.
        const key = taskId ?? `call-${++this.calls}`;
        // The log opens from the preview's title bar (Show Output, see ResultOutputButton): VS Code's
        // Markdown preview posts only scheme-less links to its extension and runs no command: link.
        this.contents.set(key, formatResult(title, taskId, status, result, { ended, outputButton: taskId !== undefined }));
        // The label as the user knows it; only what would break the path is replaced.
        const file = `${title.replace(/[/\\?#]+/g, '_')}.md`;
        const uri = vscode.Uri.from({ scheme: RESULT_SCHEME, path: `/${file}`, query: key });
        if (taskId !== undefined) {
            this.taskOfFile.set(file, taskId);
        }
        this.changed.fire(uri);
        // VS Code's built-in Markdown extension renders it; if a user disabled that, the text opens.
        await vscode.commands.executeCommand('markdown.showPreview', uri).then(undefined, async () => {
            await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
        });
        return uri;
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
