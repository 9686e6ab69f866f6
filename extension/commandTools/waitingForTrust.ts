/**
 * What Restricted Mode holds back that VS Code will not show the extension before trust (no
 * vscode import: unit-tested). VS Code hides a restricted setting's workspace value until trust
 * (`inspect().workspaceValue` is undefined), so the workspace's settings and tasks.json are read
 * as text here only to COUNT what waits: nothing read here is ever run or served.
 */
import { vscodeTaskEntries } from './commandSources';

/** JSON with comments and trailing commas (settings.json, tasks.json, .code-workspace), or undefined when it is not that. */
export function parseJsonc(text: string): unknown {
    let out = '';
    let i = 0;
    while (i < text.length) {
        const ch = text[i]!;
        if (ch === '"') {
            // A string, escapes included, copied whole: comment marks inside it are text.
            let end = i + 1;
            while (end < text.length && text[end] !== '"') {
                end += text[end] === '\\' ? 2 : 1;
            }
            out += text.slice(i, end + 1);
            i = end + 1;
        } else if (ch === '/' && text[i + 1] === '/') {
            while (i < text.length && text[i] !== '\n') {
                i++;
            }
        } else if (ch === '/' && text[i + 1] === '*') {
            const end = text.indexOf('*/', i + 2);
            i = end < 0 ? text.length : end + 2;
        } else {
            out += ch;
            i++;
        }
    }
    try {
        // A comma before a closing bracket: the only other thing JSONC allows.
        return JSON.parse(out.replace(/,(\s*[\]}])/g, '$1'));
    } catch {
        return undefined;
    }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The two restricted settings a workspace settings file declares (a `.code-workspace` file keeps them under "settings"). */
export function hiddenWorkspaceSettings(text: string | undefined, isWorkspaceFile = false): { commands?: unknown; exposeVsCodeTasks?: unknown } {
    const doc = asObject(parseJsonc(text ?? ''));
    const settings = isWorkspaceFile ? asObject(doc?.settings) : doc;
    return { commands: settings?.['mcpTasks.commands'], exposeVsCodeTasks: settings?.['mcpTasks.exposeVsCodeTasks'] };
}

/**
 * The labels of a tasks.json's tasks (those without a label VS Code names itself, and the setting
 * cannot select them); a `.code-workspace` file keeps its own tasks under "tasks", in the same shape.
 */
export function tasksJsonLabels(text: string | undefined, isWorkspaceFile = false): string[] {
    const doc = asObject(parseJsonc(text ?? ''));
    const tasks = (isWorkspaceFile ? asObject(doc?.tasks) : doc)?.tasks;
    return Array.isArray(tasks) ? tasks.map(task => asObject(task)?.label).filter((label): label is string => typeof label === 'string') : [];
}

/**
 * The tasks.json labels `exposeVsCodeTasks` would serve once trusted, by the same rule as when
 * trusted (vscodeTaskEntries): each folder's tasks.json text, in folder order.
 */
export function exposedTaskLabels(setting: unknown, tasksJsonTexts: readonly (string | undefined)[], workspaceFileText?: string): string[] {
    const tasks = tasksJsonTexts.flatMap((text, index) => tasksJsonLabels(text).map(label => ({ label, folder: String(index) })));
    // The workspace file's own tasks: VS Code lists them with the folders' (source "Workspace"), so they are served too.
    tasks.push(...tasksJsonLabels(workspaceFileText, true).map(label => ({ label, folder: 'workspace' })));
    return [...vscodeTaskEntries(setting, tasks).labels];
}

/** What an untrusted window's files say, read as text: the workspace file, if one is open, and each folder's. */
export interface WorkspaceTexts {
    /** The `.code-workspace` file's text, when the window opened one (a multi-root window). */
    workspaceFile?: string;
    /** Each folder's `.vscode/settings.json` and `.vscode/tasks.json`, in folder order. */
    folders: readonly { settings?: string; tasks?: string }[];
}

/**
 * The workspace's `mcpTasks.commands` and the tasks.json labels `mcpTasks.exposeVsCodeTasks` would
 * serve once trusted (`userExpose`: the user's own value of that setting, which VS Code shows).
 * In a window with a workspace file its "settings" hold the workspace's values and its "tasks" add
 * to the folders'. A folder's own settings.json does not count there: both settings are
 * window-scoped, and VS Code applies only resource-scoped settings from a folder of a multi-root
 * window (the trusted path reads the workspace value too), so counting them would promise
 * commands that trust never brings.
 */
export function heldBackByTrust(texts: WorkspaceTexts, userExpose: unknown): { commands: unknown; taskLabels: string[] } {
    const settings = texts.workspaceFile !== undefined ? hiddenWorkspaceSettings(texts.workspaceFile, true) : hiddenWorkspaceSettings(texts.folders[0]?.settings);
    const labels = exposedTaskLabels(settings.exposeVsCodeTasks ?? userExpose, texts.folders.map(folder => folder.tasks), texts.workspaceFile);
    return { commands: settings.commands, taskLabels: labels };
}
