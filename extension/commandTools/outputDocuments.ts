import * as vscode from 'vscode';
import { Commands, OUTPUT_SCHEME } from '../constants';
import { Disposable } from '../lifecycle';
import type { TaskModel } from '../tasks/taskModel';
import { isTerminal, taskLabel, type TaskView } from '../tasks/taskView';
import { findLogFile, readLogTail, sizeOf } from './outputLog';
import { outputFileName } from './outputTitle';

/** How often an open output view looks for new lines. */
const FOLLOW_MS = 250;

interface Followed {
    uri: vscode.Uri;
    toolName: string;
    logPath?: string;
    /** The log's size when the document's text was last read from it (-1: no log yet). */
    shown: number;
}

/**
 * Read-only documents that follow a command task's log file while it runs
 * (mcp-tasks-output:/<label> <start time>.log?<taskId>), and keep showing it after the task ends: the log
 * file stays where the server wrote it.
 */
export class OutputDocuments extends Disposable implements vscode.TextDocumentContentProvider {
    private readonly followed = new Map<string, Followed>();
    /** Documents whose editors keep the last line in sight as the log grows, until the user moves up (by task id). */
    private readonly tailing = new Set<string>();
    private readonly changed = this.register(new vscode.EventEmitter<vscode.Uri>());
    readonly onDidChange = this.changed.event;
    private timer?: NodeJS.Timeout;

    constructor(
        private readonly logDir: string,
        private readonly model: TaskModel,
    ) {
        super();
        this.register(vscode.workspace.registerTextDocumentContentProvider(OUTPUT_SCHEME, this));
        this.register(
            vscode.workspace.onDidCloseTextDocument(doc => {
                if (doc.uri.scheme === OUTPUT_SCHEME) {
                    this.followed.delete(doc.uri.query);
                    this.tailing.delete(doc.uri.query);
                }
            }),
        );
        this.register(
            vscode.workspace.onDidChangeTextDocument(event => {
                if (event.document.uri.scheme === OUTPUT_SCHEME && this.tailing.has(event.document.uri.query)) {
                    for (const editor of vscode.window.visibleTextEditors.filter(shown => shown.document === event.document)) {
                        revealEnd(editor);
                    }
                }
            }),
        );
        this.register(
            // Moving up to read stops the following; back on the last line, it follows again (as a terminal does).
            vscode.window.onDidChangeTextEditorSelection(event => {
                const doc = event.textEditor.document;
                if (doc.uri.scheme === OUTPUT_SCHEME && event.kind !== undefined && event.kind !== vscode.TextEditorSelectionChangeKind.Command) {
                    const atEnd = event.selections[0]!.active.line >= doc.lineCount - 2;
                    if (atEnd) {
                        this.tailing.add(doc.uri.query);
                    } else {
                        this.tailing.delete(doc.uri.query);
                    }
                }
            }),
        );
        this.register({ dispose: () => clearInterval(this.timer) });
    }

    /** Whether `view`'s run has a log (it is a command task that started). */
    hasOutput(view: TaskView): boolean {
        return findLogFile(this.logDir, view.toolName, view.taskId) !== undefined;
    }

    provideTextDocumentContent(uri: vscode.Uri): string {
        const entry = this.followed.get(uri.query);
        const view = this.model.get(uri.query);
        if (entry?.logPath === undefined) {
            return view && !isTerminal(view.status) ? vscode.l10n.t('Waiting for the command to start…') : vscode.l10n.t('This task has no command output.');
        }
        // The size before the read: a line that lands during it makes the next check read again.
        entry.shown = sizeOf(entry.logPath);
        return readLogTail(entry.logPath);
    }

    async show(view: TaskView): Promise<vscode.TextEditor> {
        const entry: Followed = this.followed.get(view.taskId) ?? { uri: this.uriFor(view), toolName: view.toolName, shown: -1 };
        this.followed.set(view.taskId, entry);
        this.check(view.taskId, entry);
        this.ensureTimer();
        try {
            const doc = await vscode.workspace.openTextDocument(entry.uri);
            const editor = await vscode.window.showTextDocument(doc, { preview: false });
            // Opened on its latest lines, and following them while it runs.
            this.tailing.add(view.taskId);
            revealEnd(editor);
            return editor;
        } catch (err) {
            // No document to keep up to date: the timer must not wait for one.
            this.followed.delete(view.taskId);
            throw err;
        }
    }

    /** A new document's URI, its name distinct from the other runs' open documents (the tab shows it). */
    private uriFor(view: TaskView): vscode.Uri {
        const taken = new Set([...this.followed.values()].map(other => other.uri.path.slice(1)));
        return vscode.Uri.from({ scheme: OUTPUT_SCHEME, path: `/${outputFileName(taskLabel(view), view.createdAt, taken)}`, query: view.taskId });
    }

    /**
     * Asks VS Code to read a followed log again while the document shows less than the file holds;
     * true while there is more to show or the log may still grow. The document's own read says
     * what it shows (provideTextDocumentContent), not this check: VS Code drops a change signalled
     * while it is still opening the document (its extension host does not know it yet), so a
     * command that prints one line and then waits, its line landing in that moment, was shown
     * without it for good. The signal is sent again at each check until a read takes the line.
     */
    private check(taskId: string, entry: Followed): boolean {
        entry.logPath ??= findLogFile(this.logDir, entry.toolName, taskId);
        const size = entry.logPath === undefined ? -1 : sizeOf(entry.logPath);
        const stale = size !== entry.shown;
        if (stale) {
            this.changed.fire(entry.uri);
        }
        const view = this.model.get(taskId);
        return stale || (view !== undefined && !view.lost && !isTerminal(view.status));
    }

    private ensureTimer(): void {
        if (this.timer) {
            return;
        }
        this.timer = setInterval(() => {
            let live = false;
            for (const [taskId, entry] of this.followed) {
                live = this.check(taskId, entry) || live;
            }
            if (!live) {
                // The last lines landed with the task's end (the server records it after the log is written).
                clearInterval(this.timer);
                this.timer = undefined;
            }
        }, FOLLOW_MS);
    }
}

/** The cursor on the last line, in sight. */
function revealEnd(editor: vscode.TextEditor): void {
    const end = editor.document.lineAt(editor.document.lineCount - 1).range.end;
    editor.selection = new vscode.Selection(end, end);
    editor.revealRange(new vscode.Range(end, end), vscode.TextEditorRevealType.Default);
}

/** Where a tasks.json task's output is: its terminal (see VsCodeTaskJobs). */
export interface TaskTerminals {
    hasTerminal(taskId: string): boolean;
    showTerminal(taskId: string): boolean;
}

/** The sidebar's Show Output on a task row (or, from the palette, a pick among command tasks): a command's log, or a tasks.json task's terminal. */
export function registerShowOutput(context: vscode.ExtensionContext, model: TaskModel, outputs: OutputDocuments, terminals?: TaskTerminals): void {
    context.subscriptions.push(
        vscode.commands.registerCommand(Commands.showOutput, async (view?: TaskView) => {
            let target = view;
            if (!target) {
                const candidates = model.all().filter(candidate => outputs.hasOutput(candidate) || terminals?.hasTerminal(candidate.taskId));
                const picked = await vscode.window.showQuickPick(
                    candidates.map(candidate => ({ label: taskLabel(candidate), detail: candidate.taskId, view: candidate })),
                    { placeHolder: vscode.l10n.t('Show the output of which command task?') },
                );
                target = picked?.view;
            }
            if (!target) {
                return undefined;
            }
            if (terminals?.showTerminal(target.taskId)) {
                return undefined;
            }
            if (isTerminal(target.status) && !outputs.hasOutput(target)) {
                void vscode.window.showInformationMessage(vscode.l10n.t('MCP Tasks: {0} ran no command, so it has no output to show.', taskLabel(target)));
                return undefined;
            }
            return outputs.show(target);
        }),
    );
}
