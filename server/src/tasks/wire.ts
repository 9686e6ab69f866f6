import type { TaskRecord } from './types.js';

export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';
/** Not in the v1 spec: a child task names its parent under this `_meta` key (and `tasks/list` filters by it). */
export const PARENT_TASK_META_KEY = 'dev.mcp-tasks/parent-task-id';
/** Sent to the owner only: what the task runs and for whom. */
export const TASK_INFO_META_KEY = 'dev.mcp-tasks/task-info';

/** The Task object as the spec defines it, plus namespaced `_meta`. */
export function toWireTask(record: TaskRecord, forOwner = false): Record<string, unknown> {
    const task: Record<string, unknown> = {
        taskId: record.taskId,
        status: record.status,
        createdAt: record.createdAt,
        lastUpdatedAt: record.lastUpdatedAt,
        ttl: record.ttl,
        pollInterval: record.pollInterval,
    };
    if (record.statusMessage !== undefined) {
        task.statusMessage = record.statusMessage;
    }
    if (record.parentTaskId !== undefined || forOwner) {
        const meta: Record<string, unknown> = {};
        if (record.parentTaskId !== undefined) {
            meta[PARENT_TASK_META_KEY] = record.parentTaskId;
        }
        if (forOwner) {
            meta[TASK_INFO_META_KEY] = { toolName: record.toolName, args: record.args, clientName: record.clientName, worker: record.worker };
        }
        task._meta = meta;
    }
    return task;
}

export function relatedTaskMeta(taskId: string): Record<string, unknown> {
    return { [RELATED_TASK_META_KEY]: { taskId } };
}
