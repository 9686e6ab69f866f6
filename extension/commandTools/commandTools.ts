import { mkdirSync, readFileSync, renameSync, rmSync, unwatchFile, watchFile, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { SETTINGS_SECTION, Settings } from '../constants';
import { showProblemAt } from '../errorNotice';
import { Disposable } from '../lifecycle';
import type { ScopedLogger } from '../logger';
import { pruneLogs } from './outputLog';
import { setToolTitles } from '../tasks/taskView';
import {
    commandsFileText,
    entriesOfFile,
    mergeCommands,
    vscodeTaskEntries,
    WORKSPACE_COMMANDS_FILE,
    type CommandSource,
    type MergedCommands,
    type VsCodeTaskInfo,
} from './commandSources';
import { heldBackByTrust, type WorkspaceTexts } from './waitingForTrust';

/** Where the server finds the command tools and writes their output. */
export interface CommandsLaunch {
    file: string;
    logDir: string;
}

/**
 * The command tools of this window: `mcpTasks.commands` (user, and workspace when trusted) and each
 * folder's `.vscode/mcp-tasks.json` (trusted only), merged into one file the server is launched
 * with (`--commands`). The file's path never changes, so an edit needs no new server: rewriting it
 * makes the server reload and send `tools/list_changed`, which VS Code's MCP client follows.
 */
export class CommandTools extends Disposable {
    readonly launch: CommandsLaunch;
    private text?: string;
    private merged?: MergedCommands;
    private taskEntries: Record<string, unknown>[] = [];
    private taskLabels = new Set<string>();
    private tasksRead: Promise<void> = Promise.resolve();
    /** Each workspace file's entries as last read without an error. */
    private readonly lastGoodFile = new Map<string, unknown>();
    /** Every tool served this session that runs a process: its tasks have a log, even once it is no longer declared. */
    private readonly logging = new Set<string>();
    /** The workspace files polled as well as watched (see watchFolders). */
    private readonly polled = new Set<string>();
    /** The problems the user was told of at the last read: each is told once while it lasts. */
    private told = new Set<string>();
    private readonly changed = this.register(new vscode.EventEmitter<void>());
    /** The merged set was rewritten, or the count waiting for trust changed. */
    readonly onDidChange = this.changed.event;
    private readonly read = this.register(new vscode.EventEmitter<void>());
    /** The workspace files were read again (an event, a poll, trust, folders): they may have changed. */
    readonly onDidReadFiles = this.read.event;

    constructor(
        storageDir: string,
        private readonly log: ScopedLogger,
    ) {
        super();
        // One file per window: empty windows share the global storage folder.
        this.launch = { file: join(storageDir, `commands-${process.pid}.json`), logDir: join(storageDir, 'command-logs') };
        mkdirSync(this.launch.logDir, { recursive: true, mode: 0o700 });
        pruneLogs(this.launch.logDir, Date.now());
        this.update();
        const update = () => this.update();
        const watcher = this.register(vscode.workspace.createFileSystemWatcher(`**/${WORKSPACE_COMMANDS_FILE.replace(/\\/g, '/')}`));
        this.register(watcher.onDidCreate(update));
        this.register(watcher.onDidChange(update));
        this.register(watcher.onDidDelete(update));
        this.watchFolders();
        this.register({ dispose: () => this.unpollAll() });
        const updateAll = () => {
            this.watchFolders();
            update();
            void this.readVsCodeTasks();
        };
        this.register(vscode.workspace.onDidChangeWorkspaceFolders(updateAll));
        this.register(vscode.workspace.onDidGrantWorkspaceTrust(updateAll));
        this.register(
            vscode.workspace.onDidChangeConfiguration(event => {
                if (event.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.commands}`)) {
                    update();
                }
                if (event.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.exposeVsCodeTasks}`)) {
                    void this.readVsCodeTasks();
                }
            }),
        );
        const tasksJson = this.register(vscode.workspace.createFileSystemWatcher('**/.vscode/tasks.json'));
        const readTasks = () => void this.readVsCodeTasks();
        this.register(tasksJson.onDidCreate(readTasks));
        this.register(tasksJson.onDidChange(readTasks));
        this.register(tasksJson.onDidDelete(readTasks));
        // Untrusted, VS Code hides the settings file's restricted values, so its edits are followed here for the count.
        const settingsJson = this.register(vscode.workspace.createFileSystemWatcher('**/.vscode/settings.json'));
        this.register(settingsJson.onDidCreate(update));
        this.register(settingsJson.onDidChange(update));
        this.register(settingsJson.onDidDelete(update));
        void this.readVsCodeTasks();
        this.register({ dispose: () => rmSync(this.launch.file, { force: true }) });
    }

    /** The tools served now, each with where it came from. */
    get tools(): ReadonlyMap<string, string> {
        return this.merged?.origins ?? new Map();
    }

    /**
     * Whether tasks of `toolName` have output to show: it runs (or ran, this session) a process,
     * which the server logs. A VS Code task's output is in its terminal instead.
     */
    hasOutput(toolName: string): boolean {
        return this.logging.has(toolName);
    }

    /** How many commands the workspace declares that wait for workspace trust (0 when trusted). */
    get waitingForTrust(): number {
        return this.merged?.waitingForTrust ?? 0;
    }

    /** The tasks.json labels served as tools now (none unless exposed and trusted). */
    get vscodeTaskLabels(): ReadonlySet<string> {
        return this.taskLabels;
    }

    /** Settles once the VS Code tasks read last (and any read queued before) are in the file. */
    whenTasksRead(): Promise<void> {
        return this.tasksRead;
    }

    /**
     * Reads which tasks.json tasks `mcpTasks.exposeVsCodeTasks` exposes (only in a trusted
     * workspace: tasks.json is the workspace's) and serves them. Reads run one after another.
     */
    readVsCodeTasks(): Promise<void> {
        this.tasksRead = this.tasksRead.then(async () => {
            const inspected = vscode.workspace.getConfiguration(SETTINGS_SECTION).inspect<unknown>(Settings.exposeVsCodeTasks);
            const setting = vscode.workspace.isTrusted ? (inspected?.workspaceValue ?? inspected?.globalValue) : undefined;
            let tasks: VsCodeTaskInfo[] = [];
            if (setting === true || (Array.isArray(setting) && setting.length > 0)) {
                try {
                    const first = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
                    tasks = (await vscode.tasks.fetchTasks())
                        .filter(task => task.source === 'Workspace')
                        .map(task => ({ label: task.name, detail: task.detail, folder: typeof task.scope === 'object' ? task.scope.uri.fsPath : (first ?? '') }))
                        .filter(task => task.folder !== '');
                } catch (err) {
                    this.log.warn(`cannot read the VS Code tasks: ${(err as Error).message}`);
                }
            }
            const { labels, entries, titles } = vscodeTaskEntries(setting, tasks);
            // Rows and pickers name a tasks.json task by its label, not its tool name.
            setToolTitles(titles);
            this.taskLabels = labels;
            this.taskEntries = entries;
            this.update();
        });
        return this.tasksRead;
    }

    /**
     * VS Code's file watcher was seen to miss a workspace file written from outside the editor
     * (the real-VS-Code suite, after other suites had run), so each folder's file is also polled by
     * stat, every 2 s: a missed event costs a short delay, never the user's commands. update() is
     * idempotent, so an event seen twice changes nothing.
     */
    private watchFolders(): void {
        this.unpollAll();
        for (const folder of vscode.workspace.workspaceFolders ?? []) {
            if (folder.uri.scheme !== 'file') {
                continue;
            }
            const file = join(folder.uri.fsPath, WORKSPACE_COMMANDS_FILE);
            watchFile(file, { interval: 2000, persistent: false }, () => this.update());
            this.polled.add(file);
        }
    }

    private unpollAll(): void {
        for (const file of this.polled) {
            unwatchFile(file);
        }
        this.polled.clear();
    }

    /** Reads every source again and rewrites the file when the merged set changed. */
    update(): void {
        const folders = (vscode.workspace.workspaceFolders ?? []).filter(folder => folder.uri.scheme === 'file').map(folder => folder.uri.fsPath);
        const unreadable: Problem[] = [];
        const merged = mergeCommands(this.sources(folders, unreadable), folders, vscode.workspace.isTrusted);
        this.tell([...unreadable, ...merged.wrong.map(({ source, message }) => ({ source, text: leftOutText(message) }))]);
        for (const entry of this.taskEntries) {
            // A command the user declared keeps its name; the task's tool then is not served.
            if (!merged.origins.has(entry.name as string) && folders.some(folder => folder === entry.cwd)) {
                merged.content.tools.push(entry);
                merged.origins.set(entry.name as string, 'mcpTasks.exposeVsCodeTasks');
            }
        }
        for (const tool of merged.content.tools) {
            if (tool.ownerJob === undefined) {
                this.logging.add(tool.name as string);
            }
        }
        const text = commandsFileText(merged.content);
        const trustChanged = merged.waitingForTrust !== (this.merged?.waitingForTrust ?? 0);
        this.merged = merged;
        this.read.fire();
        if (text === this.text) {
            if (trustChanged) {
                this.changed.fire();
            }
            return;
        }
        for (const problem of merged.problems) {
            this.log.warn(problem);
        }
        // Written whole and renamed into place: the server never reads half a file.
        const temp = `${this.launch.file}.tmp`;
        writeFileSync(temp, text, { mode: 0o600 });
        renameSync(temp, this.launch.file);
        this.text = text;
        this.log.info(`${merged.content.tools.length} command tool(s): ${[...merged.origins.keys()].join(', ') || 'none'}`);
        this.changed.fire();
    }

    /** A notification for each problem not told at the last read (one fixed and made again is told again). */
    private tell(problems: Problem[]): void {
        const now = new Set<string>();
        for (const { source, text } of problems) {
            now.add(text);
            if (!this.told.has(text)) {
                void showProblemAt(text, source.endsWith('.json') ? { file: source } : { setting: `${SETTINGS_SECTION}.${Settings.commands}` });
            }
        }
        this.told = now;
    }

    private sources(folders: string[], unreadable: Problem[]): CommandSource[] {
        const inspected = vscode.workspace.getConfiguration(SETTINGS_SECTION).inspect<unknown>(Settings.commands);
        const trusted = vscode.workspace.isTrusted;
        const expose = vscode.workspace.getConfiguration(SETTINGS_SECTION).inspect<unknown>(Settings.exposeVsCodeTasks);
        const hidden = trusted ? undefined : heldBackByTrust(this.workspaceTexts(folders), expose?.globalValue);
        const sources: CommandSource[] = [
            { label: 'user settings (mcpTasks.commands)', fromWorkspace: false, base: folders[0], entries: inspected?.globalValue },
            // Untrusted, VS Code hides the workspace value: its file's entries are counted, never run (mergeCommands).
            { label: 'workspace settings (mcpTasks.commands)', fromWorkspace: true, base: folders[0], entries: inspected?.workspaceValue ?? hidden?.commands },
        ];
        if (hidden) {
            // The tasks.json tasks the setting would expose once trusted: counted only (trusted, readVsCodeTasks serves them).
            sources.push({ label: 'tasks.json tasks (mcpTasks.exposeVsCodeTasks)', fromWorkspace: true, base: folders[0], entries: hidden.taskLabels });
        }
        for (const folder of folders) {
            const label = join(folder, WORKSPACE_COMMANDS_FILE);
            const text = readText(label);
            if (text === undefined) {
                // Gone: a file made again later starts afresh, not with what this one declared.
                this.lastGoodFile.delete(label);
                continue;
            }
            try {
                const entries = entriesOfFile(text, label);
                this.lastGoodFile.set(label, entries);
                sources.push({ label, fromWorkspace: true, base: folder, entries });
            } catch (err) {
                // Half-way through an edit: keep what the file declared last, as the server does with its own file.
                const kept = this.lastGoodFile.get(label);
                this.log.warn(`${(err as Error).message}; ${kept ? 'keeping its commands from before' : 'no commands from it'}`);
                unreadable.push({ source: label, text: unreadableText(label, (err as Error).message.replace(`${label}: `, ''), kept !== undefined) });
                sources.push({ label, fromWorkspace: true, base: folder, entries: kept });
            }
        }
        return sources;
    }

    /**
     * The files whose restricted settings and tasks VS Code hides until trust, as text, to count
     * only: the workspace file (a multi-root window) and each folder's settings.json and tasks.json.
     */
    private workspaceTexts(folders: string[]): WorkspaceTexts {
        const workspaceFile = vscode.workspace.workspaceFile;
        return {
            workspaceFile: workspaceFile ? (workspaceFile.scheme === 'file' ? (readText(workspaceFile.fsPath) ?? '') : '') : undefined,
            folders: folders.map(folder => ({ settings: readText(join(folder, '.vscode', 'settings.json')), tasks: readText(join(folder, '.vscode', 'tasks.json')) })),
        };
    }
}

/** A problem the user is told of, and where it is fixed: a file, or else the commands setting. */
interface Problem {
    source: string;
    text: string;
}

function unreadableText(file: string, why: string, kept: boolean): string {
    return kept
        ? vscode.l10n.t({ message: 'MCP Tasks cannot read the commands in {0}: {1}. It keeps serving the commands the file declared before until the file is fixed.', args: [file, why], comment: ['{0} is a file, {1} what is wrong with it'] })
        : vscode.l10n.t({ message: 'MCP Tasks cannot read the commands in {0}: {1}. It serves no command from this file until the file is fixed.', args: [file, why], comment: ['{0} is a file, {1} what is wrong with it'] });
}

function leftOutText(problem: string): string {
    return vscode.l10n.t({ message: 'MCP Tasks leaves out a command: {0}. The other commands are served.', args: [problem], comment: ['{0} names where the command is declared and what is wrong with it'] });
}

/** A file's text, or undefined when it cannot be read (most often: there is none). */
function readText(file: string): string | undefined {
    try {
        return readFileSync(file, 'utf8');
    } catch {
        return undefined;
    }
}
