import type { TaskRecord } from './types.js';

/**
 * Tasks of a previous server process that died while they ran (the editor hands their ids to the
 * server it starts next, in MCP_TASKS_LOST_TASKS). A client still waiting on one (VS Code's MCP
 * client polls the new server for it) reads it as failed, with words a model can act on, instead of
 * "not found" (which VS Code turns into a bare cancellation) or a wait that never ends.
 */
export interface LostTask {
    taskId: string;
    toolName: string;
}

/** Enough for any window's unfinished tasks; a longer list is cut, never refused. */
const MAX_LOST = 1000;
const ID_PATTERN = /^[\w-]{1,128}$/;
const NAME_PATTERN = /^[\w.-]{1,128}$/;

/** The variable's JSON array; anything malformed is left out (the server starts either way). */
export function parseLostTasks(text: string | undefined): LostTask[] {
    if (!text) {
        return [];
    }
    let parsed: unknown;
    try {
        parsed = JSON.parse(text);
    } catch {
        return [];
    }
    if (!Array.isArray(parsed)) {
        return [];
    }
    return parsed
        .filter((item): item is LostTask => typeof item === 'object' && item !== null && typeof item.taskId === 'string' && ID_PATTERN.test(item.taskId) && typeof item.toolName === 'string' && NAME_PATTERN.test(item.toolName))
        .slice(0, MAX_LOST)
        .map(({ taskId, toolName }) => ({ taskId, toolName }));
}

/** What the waiting client (a model, through its host) reads. */
export function lostMessage(toolName: string): string {
    return `Lost: the MCP Tasks server stopped unexpectedly while this task ran, and its work is gone. Call ${toolName} again to start it anew.`;
}

/** The failed record a lost task's id reads as, for the client asking. */
export function lostRecord(task: LostTask, clientKey: string, now: Date): TaskRecord {
    const at = now.toISOString();
    return {
        taskId: task.taskId,
        status: 'failed',
        statusMessage: lostMessage(task.toolName),
        createdAt: at,
        lastUpdatedAt: at,
        ttl: 60_000,
        pollInterval: 1000,
        clientKey,
        toolName: task.toolName,
        args: {},
        seq: 0,
    };
}
