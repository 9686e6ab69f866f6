/**
 * Where the extension's command tools come from, and the one merged commands file it hands its
 * server (no vscode import: unit-tested). The server's own parser validates each entry, so the
 * extension and `--commands` accept exactly the same entries.
 */
import { join } from 'node:path';
import { parseCommandsFile } from '@mcp-tasks/server/commandSpec';
import { VSCODE_TASK_JOB } from '@mcp-tasks/server/contract';

/** The workspace file, relative to each workspace folder. */
export const WORKSPACE_COMMANDS_FILE = join('.vscode', 'mcp-tasks.json');

export interface CommandSource {
    /** Names the source in problems: "user settings", "/ws/.vscode/mcp-tasks.json". */
    label: string;
    /** Declared by the workspace (workspace setting, folder file): needs a trusted workspace. */
    fromWorkspace: boolean;
    /** What a relative `cwd` (and the default one) resolves against: the entry's workspace folder. */
    base: string | undefined;
    /** The entries as declared: an array, or anything else (reported). */
    entries: unknown;
}

/** What the server reads: absolute roots (the workspace folders) and entries with absolute cwds. */
export interface CommandsFileContent {
    roots: string[];
    tools: Record<string, unknown>[];
}

export interface MergedCommands {
    content: CommandsFileContent;
    /** Where each tool came from, by name. */
    origins: Map<string, string>;
    /** Entries left out and why, one line each (for the log). */
    problems: string[];
    /** Of those, the ones left out because they are written wrong (the user is told): each with the source's label. */
    wrong: { source: string; message: string }[];
    /** How many workspace entries Restricted Mode holds back (the view and Run Tool say so). */
    waitingForTrust: number;
}

/** A workspace file's object: `{"tools": [...], "wrap": {...}}`, either part optional. */
export function parseWorkspaceFile(text: string, label: string): Record<string, unknown> {
    let doc: unknown;
    try {
        doc = JSON.parse(text);
    } catch (err) {
        throw new Error(`${label}: not valid JSON: ${(err as Error).message}`, { cause: err });
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
        throw new Error(`${label}: expected {"tools": [...]} (and/or "wrap": {...})`);
    }
    return doc as Record<string, unknown>;
}

/** The command entries of a workspace file's text, as the server's file; none when it only wraps servers. */
export function entriesOfFile(text: string, label: string): unknown {
    const doc = parseWorkspaceFile(text, label);
    if (doc.tools === undefined && doc.wrap !== undefined) {
        return [];
    }
    if (!Array.isArray(doc.tools)) {
        throw new Error(`${label}: expected {"tools": [...]} (and/or "wrap": {...})`);
    }
    return doc.tools;
}

/**
 * Merges the sources in order (user settings, workspace settings, folder files): a later entry of
 * the same name replaces an earlier one. Workspace sources count only in a trusted workspace; every
 * working directory must lie inside a workspace folder, so with no folder open no command is served.
 * A bad entry is left out with its reason; the others still serve.
 */
export function mergeCommands(sources: readonly CommandSource[], folders: readonly string[], trusted: boolean): MergedCommands {
    const byName = new Map<string, Record<string, unknown>>();
    const origins = new Map<string, string>();
    const problems: string[] = [];
    const wrong: MergedCommands['wrong'] = [];
    let waitingForTrust = 0;
    for (const source of sources) {
        const entries = source.entries;
        if (entries === undefined || (Array.isArray(entries) && entries.length === 0)) {
            continue;
        }
        if (!Array.isArray(entries)) {
            problems.push(`${source.label}: must be an array of command entries`);
            wrong.push({ source: source.label, message: problems.at(-1)! });
            continue;
        }
        if (source.fromWorkspace && !trusted) {
            problems.push(`${source.label}: ${entries.length} command(s) wait for workspace trust`);
            waitingForTrust += entries.length;
            continue;
        }
        if (folders.length === 0 || source.base === undefined) {
            problems.push(`${source.label}: ${entries.length} command(s) need an open workspace folder to run in`);
            continue;
        }
        entries.forEach((entry, index) => {
            const checked = checkEntry(entry, index, source, folders);
            if (typeof checked === 'string') {
                problems.push(checked);
                wrong.push({ source: source.label, message: checked });
                return;
            }
            const name = checked.name as string;
            if (origins.has(name)) {
                problems.push(`${source.label}: ${name} replaces the command of that name from ${origins.get(name)}`);
            }
            byName.set(name, checked);
            origins.set(name, source.label);
        });
    }
    return { content: { roots: [...folders], tools: [...byName.values()] }, origins, problems, wrong, waitingForTrust };
}

/** The entry with its cwd made absolute, or why it is left out. */
function checkEntry(entry: unknown, index: number, source: CommandSource, folders: readonly string[]): Record<string, unknown> | string {
    // The server's parser, on a one-entry file that lives in the source's folder: relative cwds resolve there.
    const where = join(source.base!, '<entry>');
    try {
        const [spec] = parseCommandsFile(JSON.stringify({ roots: folders, tools: [entry] }), where);
        return { ...(entry as Record<string, unknown>), cwd: spec!.cwd };
    } catch (err) {
        return `${source.label}: ${(err as Error).message.replace(`${where}: tools[0]`, `[${index}]`)}`;
    }
}

/** The file's text; stable for the same content, so an unchanged merge rewrites nothing. */
export function commandsFileText(content: CommandsFileContent): string {
    return JSON.stringify(content, null, 2) + '\n';
}

/** A tasks.json task VS Code knows: its label and detail, and the folder it belongs to. */
export interface VsCodeTaskInfo {
    label: string;
    detail?: string;
    folder: string;
}

/** The tool name of a VS Code task: `vscode_task_` and its label, made a valid name. */
export function vscodeTaskToolName(label: string): string {
    return `vscode_task_${label.replace(/[^a-zA-Z0-9_-]+/g, '_')}`.slice(0, 64);
}

/**
 * The labels `mcpTasks.exposeVsCodeTasks` selects among `tasks` (true: all; a list: those labels;
 * anything else: none), and the commands-file entries that run them as owner jobs. The first task
 * of a label wins (VS Code starts a task by label), and so does the first of a tool name.
 */
export function vscodeTaskEntries(setting: unknown, tasks: readonly VsCodeTaskInfo[]): { labels: Set<string>; entries: Record<string, unknown>[]; titles: Map<string, string> } {
    const wanted = setting === true ? undefined : Array.isArray(setting) ? new Set(setting.filter(label => typeof label === 'string')) : new Set<string>();
    const labels = new Set<string>();
    const names = new Set<string>();
    const entries: Record<string, unknown>[] = [];
    const titles = new Map<string, string>();
    for (const task of tasks) {
        const name = vscodeTaskToolName(task.label);
        if ((wanted && !wanted.has(task.label)) || labels.has(task.label) || names.has(name)) {
            continue;
        }
        labels.add(task.label);
        names.add(name);
        titles.set(name, task.label);
        entries.push({
            name,
            title: `VS Code task: ${task.label}`,
            description:
                `Runs the VS Code task "${task.label}" from the workspace's tasks.json${task.detail ? ` (${task.detail})` : ''}, in the editor's terminal, ` +
                `where the user sees it; its problem matchers report in the Problems view. Completes when the task exits with code 0, fails otherwise. Must run as a task.`,
            cwd: task.folder,
            ownerJob: { kind: VSCODE_TASK_JOB, key: task.label },
        });
    }
    return { labels, entries, titles };
}
