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
        // No log link yet: VS Code's Markdown preview posts only scheme-less links to its extension and runs no command: link.
        this.contents.set(key, formatResult(title, taskId, status, result, { ended }));
        // The label as the user knows it; only what would break the path is replaced.
        const uri = vscode.Uri.from({ scheme: RESULT_SCHEME, path: `/${title.replace(/[/\\?#]+/g, '_')}.md`, query: key });
        this.changed.fire(uri);
        // VS Code's built-in Markdown extension renders it; if a user disabled that, the text opens.
        await vscode.commands.executeCommand('markdown.showPreview', uri).then(undefined, async () => {
            await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
        });
        return uri;
    }
}
