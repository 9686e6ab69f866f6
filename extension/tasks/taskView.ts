/** Wire-level facts the sidebar shows about one task (no vscode import: unit-tested). */
import { isTerminal, PARENT_TASK_META_KEY, TASK_INFO_META_KEY, type TaskInfo, type TaskStatus } from '@mcp-tasks/server/contract';

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
    parentTaskId?: string;
    progress?: TaskProgress;
    /** The server process that ran it died: its outcome will never come. */
    lost?: boolean;
}

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
        statusMessage: typeof wire.statusMessage === 'string' ? wire.statusMessage : undefined,
        createdAt: String(wire.createdAt ?? ''),
        lastUpdatedAt: String(wire.lastUpdatedAt ?? ''),
        ttl: typeof wire.ttl === 'number' ? wire.ttl : null,
        toolName: typeof info.toolName === 'string' ? info.toolName : 'task',
        args: info.args && typeof info.args === 'object' ? (info.args as Record<string, unknown>) : {},
        keyArgument: typeof info.keyArgument === 'string' && info.keyArgument !== '' ? info.keyArgument : undefined,
        clientName: typeof info.clientName === 'string' ? info.clientName : undefined,
        background: info.background === true || undefined,
        parentTaskId: typeof parent === 'string' ? parent : undefined,
    };
}

/** "slow_compute: nightly": the tool, and the key argument its server named, if any. */
export function taskLabel(view: Pick<TaskView, 'toolName' | 'keyArgument'>): string {
    return view.keyArgument ? `${view.toolName}: ${view.keyArgument}` : view.toolName;
}

export const STATUS_TEXT: Record<TaskStatus, string> = {
    working: 'running',
    input_required: 'needs input',
    completed: 'completed',
    failed: 'failed',
    cancelled: 'cancelled',
};

export function progressPercent(progress: TaskProgress | undefined): number | undefined {
    if (!progress || !progress.total || progress.total <= 0) {
        return undefined;
    }
    return Math.max(0, Math.min(100, Math.round((progress.progress / progress.total) * 100)));
}

export function formatElapsed(ms: number): string {
    const seconds = Math.max(0, Math.floor(ms / 1000));
    if (seconds < 60) {
        return `${seconds}s`;
    }
    const minutes = Math.floor(seconds / 60);
    if (minutes < 60) {
        return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
    }
    return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** "running · 40% · 12s": status, progress when known, and time so far (or total time when done). */
export function taskDescription(view: TaskView, now: number): string {
    const parts: string[] = [view.lost ? 'lost (server stopped)' : STATUS_TEXT[view.status]];
    const percent = progressPercent(view.progress);
    if (percent !== undefined && !isTerminal(view.status)) {
        parts.push(`${percent}%`);
    }
    const started = Date.parse(view.createdAt);
    const ended = isTerminal(view.status) ? Date.parse(view.lastUpdatedAt) : now;
    if (!Number.isNaN(started) && !Number.isNaN(ended)) {
        parts.push(formatElapsed(ended - started));
    }
    return parts.join(' · ');
}

export type ClientKind = 'copilot' | 'editor' | 'other';

/** Who started a task, from the client name it gave in initialize. */
export function clientKind(clientName: string | undefined, ownClientName: string): ClientKind {
    if (clientName === ownClientName) {
        return 'editor';
    }
    if (clientName && /visual studio code|vscode|code-server|copilot/i.test(clientName)) {
        return 'copilot';
    }
    return 'other';
}

export const CLIENT_KIND_TEXT: Record<ClientKind, string> = {
    copilot: 'Copilot (VS Code MCP client)',
    editor: 'this editor (Run Tool)',
    other: 'another MCP client',
};

/** Sidebar order: running, then needs input, then finished; newest first within each group. */
export function compareTasks(a: TaskView, b: TaskView): number {
    const rank = (view: TaskView) => (view.lost ? 2 : view.status === 'working' ? 0 : view.status === 'input_required' ? 1 : 2);
    const byGroup = rank(a) - rank(b);
    if (byGroup !== 0) {
        return byGroup;
    }
    return b.createdAt.localeCompare(a.createdAt) || a.taskId.localeCompare(b.taskId);
}
