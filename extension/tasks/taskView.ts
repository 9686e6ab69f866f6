/** Wire-level facts the sidebar shows about one task (no vscode import: unit-tested). */
import * as l10n from '@vscode/l10n';
import { isTerminal, PARENT_TASK_META_KEY, TASK_INFO_META_KEY, type TaskInfo, type TaskStatus } from '@mcp-tasks/server/contract';
import { plainText } from '../errorText';

export { isTerminal, type TaskStatus };

export interface TaskProgress {
    progress: number;
    total?: number;
    message?: string;
}

export interface TaskView {
    taskId: string;
    status: TaskStatus;
    statusMessage?: string;
    createdAt: string;
    lastUpdatedAt: string;
    ttl: number | null;
    toolName: string;
    args: Record<string, unknown>;
    /** The value of the tool's key argument, as the server names the invocation (a label, topic, file). */
    keyArgument?: string;
    clientName?: string;
    /** Started by a model through a start_<tool> task tool: nobody waits on it in a chat turn. */
    background?: boolean;
    /** Called from a chat conversation: VS Code's MCP client asks its questions in that chat. */
    chat?: boolean;
    parentTaskId?: string;
    progress?: TaskProgress;
    /** The server process that ran it died, or dropped it unfinished: its outcome will never come. */
    lost?: boolean;
    /** Why a lost task ended when its server lives on: it ran out its time (ttl) unfinished, a question left unanswered. */
    expired?: boolean;
    /** When an unfinished task was lost or expired (ISO): its time stops there. */
    endedAt?: string;
    /** When the client that started this live task stopped waiting for it (it stopped polling: Copilot's call was cancelled). */
    stoppedWaitingAt?: string;
}

/** The tool name of a task whose owner view said nothing of what it runs. */
export const UNKNOWN_TOOL = 'task';

/** Reads a Task as the server sends it to the owner (status notification, tasks/get, tasks/list). */
export function fromWire(wire: Record<string, unknown>): TaskView | undefined {
    if (typeof wire.taskId !== 'string' || typeof wire.status !== 'string') {
        return undefined;
    }
    const meta = (wire._meta ?? {}) as Record<string, unknown>;
    const info = (meta[TASK_INFO_META_KEY] ?? {}) as { [K in keyof TaskInfo]?: unknown };
    const parent = meta[PARENT_TASK_META_KEY];
    return {
        taskId: wire.taskId,
        status: wire.status as TaskStatus,
        // Shown in the row, its tooltip and notifications: in words, without protocol codes.
        statusMessage: typeof wire.statusMessage === 'string' ? statusInWords(wire.statusMessage, typeof info.clientName === 'string' ? info.clientName : undefined) : undefined,
        createdAt: String(wire.createdAt ?? ''),
        lastUpdatedAt: String(wire.lastUpdatedAt ?? ''),
        ttl: typeof wire.ttl === 'number' ? wire.ttl : null,
        toolName: typeof info.toolName === 'string' ? info.toolName : UNKNOWN_TOOL,
        args: info.args && typeof info.args === 'object' ? (info.args as Record<string, unknown>) : {},
        keyArgument: typeof info.keyArgument === 'string' && info.keyArgument !== '' ? info.keyArgument : undefined,
        clientName: typeof info.clientName === 'string' ? info.clientName : undefined,
        background: info.background === true || undefined,
        chat: info.chat === true || undefined,
        parentTaskId: typeof parent === 'string' ? parent : undefined,
        stoppedWaitingAt: typeof info.stoppedWaitingAt === 'string' && !isTerminal(wire.status as TaskStatus) ? info.stoppedWaitingAt : undefined,
    };
}

/** "slow_compute: nightly": the tool, and the key argument its server named, if any. */
export function taskLabel(view: Pick<TaskView, 'toolName' | 'keyArgument'>): string {
    const name = toolTitle(view.toolName);
    return view.keyArgument ? `${name}: ${view.keyArgument}` : name;
}

/** The user's own names for tools whose names are made for a model: a tasks.json task's label for `vscode_task_build`. */
const toolTitles = new Map<string, string>();

/** Set by the command sources whenever the exposed tasks.json tasks are read. */
export function setToolTitles(titles: ReadonlyMap<string, string>): void {
    toolTitles.clear();
    for (const [name, title] of titles) {
        toolTitles.set(name, title);
    }
}

/** The titles the server's tools declare (a command tool's `title`), read by the owner connection. */
const serverTitles = new Map<string, string>();

/** Set whenever the owner connection reads the server's tool list. */
export function setServerToolTitles(tools: readonly { name: string; title?: string }[]): void {
    serverTitles.clear();
    for (const tool of tools) {
        // The built-in demonstration tools' titles ("Demo: Slow Compute") tell a model what they are;
        // their rows, notices and tabs keep the short names the README and the walk show.
        const title = tool.title?.trim();
        if (title && !title.startsWith('Demo: ')) {
            serverTitles.set(tool.name, title);
        }
    }
}

/** A tool as the user names it: a tasks.json task's label, else the title its server declares, else its name. */
export function toolTitle(toolName: string): string {
    return toolTitles.get(toolName) ?? serverTitles.get(toolName) ?? toolName;
}

/** The extension's own words when the user answers Deny to a language model question (lm/sampling.ts), as the server quotes them back. */
const DENIED_BY_USER = /^The user denied sampling\b/;

/** The user's own Deny ended it: their choice, not a failure of the work. */
export function deniedByUser(view: Pick<TaskView, 'status' | 'statusMessage'>): boolean {
    return view.status === 'failed' && DENIED_BY_USER.test(view.statusMessage ?? '');
}

/** A task of a server that is gone: unfinished ones are lost, finished ones are history. */
function lostOrStatus(view: TaskView): string {
    if (deniedByUser(view)) {
        return l10n.t({ message: 'denied by you', comment: ['A task that ended because the user answered Deny when it asked to use a language model'] });
    }
    if (!view.lost) {
        return view.stoppedWaitingAt && !isTerminal(view.status) ? stoppedWaitingText(view.clientName) : statusText(view.status);
    }
    if (view.expired) {
        return view.status === 'input_required'
            ? l10n.t({ message: 'expired · not answered in time', comment: ['A task whose question was never answered, and whose time ran out'] })
            : l10n.t({ message: 'expired · ran out of time', comment: ['A task that did not finish before its time ran out'] });
    }
    return isTerminal(view.status)
        ? l10n.t({ message: '{0} on a previous server', args: [statusText(view.status)], comment: ['{0} is a task status such as "completed"'] })
        : l10n.t('lost (server stopped)');
}

/**
 * A row's state as its label's first words ("Needs input: important.txt"), with what the state
 * word alone does not say (`detail`: "not answered in time", "Copilot stopped waiting") left for
 * the description. First, so that a narrow sidebar (200% zoom) cuts the name, never the state: in
 * the description it was cut first, leaving only the icon.
 */
function rowState(view: TaskView): { word: string; detail?: string } {
    if (deniedByUser(view)) {
        return { word: l10n.t({ message: 'Denied by you', comment: ['A row\'s state: the user answered Deny when the task asked to use a language model'] }) };
    }
    if (!view.lost) {
        const detail = view.stoppedWaitingAt && !isTerminal(view.status) ? stoppedWaitingText(view.clientName) : undefined;
        return { word: stateWord(view.status), detail };
    }
    if (view.expired) {
        const word = l10n.t({ message: 'Expired', comment: ['A row\'s state: the task\'s time ran out before it ended'] });
        return view.status === 'input_required'
            ? { word, detail: l10n.t({ message: 'not answered in time', comment: ['Why a task expired: its question was never answered'] }) }
            : { word, detail: l10n.t({ message: 'ran out of time', comment: ['Why a task expired: it did not finish in time'] }) };
    }
    return isTerminal(view.status)
        ? { word: stateWord(view.status), detail: l10n.t({ message: 'on a previous server', comment: ['A finished task of a server that has since stopped'] }) }
        : { word: l10n.t({ message: 'Lost', comment: ['A row\'s state: the server stopped while the task ran'] }), detail: l10n.t({ message: 'server stopped', comment: ['Why a task was lost'] }) };
}

/** The status as a row's first word. */
function stateWord(status: TaskStatus): string {
    switch (status) {
        case 'working':
            return l10n.t({ message: 'Running', comment: ['A row\'s state, before the task\'s name'] });
        case 'input_required':
            return l10n.t({ message: 'Needs input', comment: ['A row\'s state, before the task\'s name: it waits for an answer from the user'] });
        case 'completed':
            return l10n.t({ message: 'Completed', comment: ['A row\'s state, before the task\'s name'] });
        case 'failed':
            return l10n.t({ message: 'Failed', comment: ['A row\'s state, before the task\'s name'] });
        case 'cancelled':
            return l10n.t({ message: 'Cancelled', comment: ['A row\'s state, before the task\'s name'] });
    }
}


/** Longest key argument a row shows whole: with its state and time it must fit a 300 px sidebar. */
export const ROW_LABEL_MAX = 16;

/**
 * A tree row's label: the key argument alone ("quarterly report", or "build" for a deploy's
 * step), so that status, progress and time fit beside it; the tool name when there is none.
 * The tool goes to the end of the description (taskDescription), the full text to the tooltip.
 */
export function rowLabel(view: Pick<TaskView, 'toolName' | 'keyArgument'>): string {
    const key = view.keyArgument;
    if (!key) {
        return toolTitle(view.toolName);
    }
    return key.length > ROW_LABEL_MAX ? `${key.slice(0, ROW_LABEL_MAX - 1).trimEnd()}…` : key;
}

/** The status as the sidebar words it; a function, so the words follow the display language. */
export function statusText(status: TaskStatus): string {
    switch (status) {
        case 'working':
            return l10n.t({ message: 'running', comment: ['A task status'] });
        case 'input_required':
            return l10n.t({ message: 'needs input', comment: ['A task status: the task waits for an answer from the user'] });
        case 'completed':
            return l10n.t({ message: 'completed', comment: ['A task status'] });
        case 'failed':
            return l10n.t({ message: 'failed', comment: ['A task status'] });
        case 'cancelled':
            return l10n.t({ message: 'cancelled', comment: ['A task status'] });
    }
}

export function progressPercent(progress: TaskProgress | undefined): number | undefined {
    if (!progress || !progress.total || progress.total <= 0) {
        return undefined;
    }
    return Math.max(0, Math.min(100, Math.round((progress.progress / progress.total) * 100)));
}

export function formatElapsed(ms: number): string {
    const seconds = Math.max(0, Math.floor(ms / 1000));
    if (seconds < 60) {
        return l10n.t({ message: '{0}s', args: [seconds], comment: ['Time a task has run: seconds'] });
    }
    const minutes = Math.floor(seconds / 60);
    if (minutes < 60) {
        return l10n.t({ message: '{0}m {1}s', args: [minutes, String(seconds % 60).padStart(2, '0')], comment: ['Time a task has run: minutes and seconds'] });
    }
    return l10n.t({ message: '{0}h {1}m', args: [Math.floor(minutes / 60), String(minutes % 60).padStart(2, '0')], comment: ['Time a task has run: hours and minutes'] });
}

/**
 * Time so far of a running task, in whole minutes: a row that changes every second is redrawn
 * every second, and a redraw closes the tooltip the user is reading.
 */
export function formatRunningTime(ms: number): string {
    const minutes = Math.floor(Math.max(0, ms) / 60_000);
    if (minutes < 1) {
        return l10n.t({ message: '<1m', comment: ['Time a running task has run: under a minute'] });
    }
    if (minutes < 60) {
        return l10n.t({ message: '{0}m', args: [minutes], comment: ['Time a running task has run: minutes'] });
    }
    return l10n.t({ message: '{0}h {1}m', args: [Math.floor(minutes / 60), String(minutes % 60).padStart(2, '0')], comment: ['Time a task has run: hours and minutes'] });
}

/**
 * "running · 40% · 3m · slow_compute": the status, the progress when known, why it failed or how it ended, the
 * time so far (or in total once done), and the tool when the label is its key argument; what a row's
 * screen-reader name says after the task's name (rowText's `described`).
 */
export function taskDescription(view: TaskView, now: number, opts: { tool?: boolean } = {}): string {
    return rowText(view, now, opts).described;
}

/**
 * A row as drawn: `label`, its state then its name ("Needs input: important.txt"); `description`,
 * what the state word does not say, then the rest. `described`: the description with the state in
 * words first (taskDescription), as the row is heard.
 */
export function rowText(view: TaskView, now: number, opts: { tool?: boolean } = {}): { label: string; description: string; described: string } {
    const state = rowState(view);
    const details = detailParts(view, now, opts);
    return {
        label: l10n.t({ message: '{0}: {1}', args: [state.word, rowLabel(view)], comment: ['A Tasks row: {0} is its state ("Running"), {1} its name'] }),
        description: [...(state.detail ? [state.detail] : []), ...details].join(' · '),
        described: [lostOrStatus(view), ...details].join(' · '),
    };
}

/** Progress, outcome, time and tool: the parts after the state. */
function detailParts(view: TaskView, now: number, opts: { tool?: boolean }): string[] {
    const parts: string[] = [];
    const percent = progressPercent(view.progress);
    if (percent !== undefined && !isTerminal(view.status)) {
        parts.push(`${percent}%`);
    } else if (view.progress?.message && !isTerminal(view.status) && !view.lost) {
        // A command has no percent: its progress is its latest meaningful output line, or its test counts
        // ("12 passed, 1 failed so far — ok 13 - parses dates"), as the server words them.
        parts.push(progressLine(view.progress.message));
    }
    // A failure's reason is what the user needs next, and a completed task's outcome in words
    // (confirm_delete's "Confirmed" or "Declined") tells apart results that look alike: visible without hovering.
    if ((view.status === 'failed' || view.status === 'completed') && view.statusMessage && !deniedByUser(view)) {
        parts.push(endingLine(view.statusMessage));
    } else if (view.status === 'cancelled' && view.statusMessage && STOPPED_WAITING.test(view.statusMessage)) {
        // Not the user's own cancel: say whose leaving ended it.
        parts.push(stoppedWaitingText(view.clientName));
    }
    const started = Date.parse(view.createdAt);
    const over = isTerminal(view.status) || view.endedAt !== undefined;
    const ended = isTerminal(view.status) ? Date.parse(view.lastUpdatedAt) : view.endedAt !== undefined ? Date.parse(view.endedAt) : now;
    if (!Number.isNaN(started) && !Number.isNaN(ended)) {
        parts.push(over ? formatElapsed(ended - started) : formatRunningTime(ended - started));
    }
    if (opts.tool && view.keyArgument) {
        parts.push(toolTitle(view.toolName));
    }
    return parts;
}

/** Longest progress line a row shows; the tooltip and Show Output have the rest. */
const PROGRESS_LINE_MAX = 80;

/** One line of a command's output as a row shows it: no control characters, no runs of spaces, cut to PROGRESS_LINE_MAX. */
function progressLine(message: string): string {
    // eslint-disable-next-line no-control-regex
    const line = message.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/[\x00-\x1f\x7f]+/g, ' ').replace(/\s+/g, ' ').trim();
    return line.length > PROGRESS_LINE_MAX ? `${line.slice(0, PROGRESS_LINE_MAX - 1).trimEnd()}…` : line;
}

/** A command's status message ends with where its log is and how to read it: the tooltip and Show Output have those. */
const LOG_LINE = /^(?:Task [\w-]+\.\s*)?Full log(?: \([^)]*\))?: /;

/**
 * A status message as one row line: a failed command's is several ("exit 1 after 3 s", "2 failing
 * tests:", "✖ parses dates (test/a.test.js:12)", …, "Full log: /tmp/…"); a row shows its first two
 * lines joined, without the log, cut to PROGRESS_LINE_MAX. The tooltip keeps every line.
 */
export function endingLine(message: string): string {
    const lines = message
        .split(/\r?\n/)
        .map(line => line.trim())
        .filter(line => line !== '' && !LOG_LINE.test(line));
    return progressLine(lines.slice(0, 2).join(' — '));
}

/** statusInWords' wording of the server's message for a task cancelled because its caller stopped polling it. */
const STOPPED_WAITING = /stopped waiting for it/i;

/** A live task whose caller stopped polling it: who stopped waiting, in words (the row's status). */
export function stoppedWaitingText(clientName: string | undefined): string {
    return isCopilot(clientName) ? l10n.t('Copilot stopped waiting') : l10n.t('The app that started it stopped waiting');
}

function isCopilot(clientName: string | undefined): boolean {
    return !!clientName && /visual studio code|vscode|code-server|copilot/i.test(clientName);
}

export type ClientKind = 'copilot' | 'editor' | 'other';

/** Who started a task, from the client name it gave in initialize. */
export function clientKind(clientName: string | undefined, ownClientName: string): ClientKind {
    if (clientName === ownClientName) {
        return 'editor';
    }
    if (isCopilot(clientName)) {
        return 'copilot';
    }
    return 'other';
}

/** The server's words when it cancels a task its caller stopped polling (server/src/tasks/runtime.ts, abandoned): they name protocol methods. */
const ABANDONED = /^Cancelled: the client that started this task stopped following it \(no [\w/, ]+ for ([\d.]+) s\)$/;

/** A task's status message as a person reads it: without protocol codes or method names. */
export function statusInWords(message: string, clientName: string | undefined): string {
    const abandoned = ABANDONED.exec(message.trim());
    if (abandoned) {
        // VS Code's MCP client (Copilot) sends no cancel when a chat stops: its polls just end.
        return clientKind(clientName, '') === 'copilot'
            ? l10n.t({ message: 'Cancelled: Copilot stopped waiting for it (no check for {0} s)', args: [abandoned[1]!], comment: ['{0} is a number of seconds'] })
            : l10n.t({ message: 'Cancelled: the app that started it stopped waiting for it (no check for {0} s)', args: [abandoned[1]!], comment: ['{0} is a number of seconds'] });
    }
    return plainText(message).replace(READ_OUTPUT_HINT, '').replace(READ_OUTPUT_TAIL, '.');
}

/**
 * A failed command's message tells a model which tool reads its whole output ("Task …: read_output with
 * task_id "…" reads the whole output."); a person has Show Output on the row instead.
 */
const READ_OUTPUT_HINT = /Task [\w-]+: read_output with task_id "[^"]*" reads the whole output\.\s*/g;
/** The command result's "…: <log>; read_output with task_id "…" (grep, tail_lines, offset) reads any part of it." */
const READ_OUTPUT_TAIL = /; read_output with task_id "[^"]*" \([^)]*\) reads any part of it\./g;

/** Who started a task, as the tooltip's "Started by" row words it, with the client's own name where it gave one. */
export function clientKindText(kind: ClientKind, clientName?: string): string {
    switch (kind) {
        case 'copilot':
            return clientName
                ? l10n.t({ message: 'Copilot, through {0}', args: [clientName], comment: ['{0} is the editor whose MCP client called the tool, e.g. "Visual Studio Code"'] })
                : l10n.t('Copilot, through VS Code');
        case 'editor':
            return l10n.t('this editor (Run Tool)');
        case 'other':
            return clientName
                ? l10n.t({ message: '{0} (another MCP client)', args: [clientName], comment: ['{0} is the name the MCP client gave, e.g. "claude-code"'] })
                : l10n.t('another MCP client');
    }
}

/** Sidebar order: running, then needs input, then finished; newest first within each group. */
export function compareTasks(a: TaskView, b: TaskView): number {
    const rank = (view: TaskView) => (view.lost ? 2 : view.status === 'working' ? 0 : view.status === 'input_required' ? 1 : 2);
    const byGroup = rank(a) - rank(b);
    if (byGroup !== 0) {
        return byGroup;
    }
    return b.createdAt.localeCompare(a.createdAt) || a.taskId.localeCompare(b.taskId);
}

/** Sub-tasks in the order they started, whatever their state: the steps of their parent. Equal times keep the order they arrived in (a stable sort). */
export function compareSteps(a: TaskView, b: TaskView): number {
    return a.createdAt.localeCompare(b.createdAt);
}
