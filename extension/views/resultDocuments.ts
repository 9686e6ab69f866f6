import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import { RESULT_SCHEME } from '../constants';
import { Disposable } from '../lifecycle';
import { formatResult } from '../tasks/resultText';

/** Read-only documents showing task results: mcp-tasks-result:/<label>.md?<taskId>. */
export class ResultDocuments extends Disposable implements vscode.TextDocumentContentProvider {
    private readonly contents = new Map<string, string>();
    private readonly changed = this.register(new vscode.EventEmitter<vscode.Uri>());
    readonly onDidChange = this.changed.event;

    constructor() {
        super();
        this.register(vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, this));
    }

    provideTextDocumentContent(uri: vscode.Uri): string {
        return this.contents.get(uri.query) ?? vscode.l10n.t('This result is no longer available.');
    }

    async show(taskId: string, title: string, status: string, result: CallToolResult): Promise<vscode.TextEditor> {
        this.contents.set(taskId, formatResult(title, taskId, status, result));
        const uri = vscode.Uri.from({ scheme: RESULT_SCHEME, path: `/${title.replace(/[^\w.-]+/g, '_')}.md`, query: taskId });
        this.changed.fire(uri);
        const doc = await vscode.workspace.openTextDocument(uri);
        return vscode.window.showTextDocument(doc, { preview: true });
    }
}
