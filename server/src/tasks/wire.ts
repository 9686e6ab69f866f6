import { PARENT_TASK_META_KEY, RELATED_TASK_META_KEY, TASK_INFO_META_KEY, type TaskInfo } from '../contract.js';
import type { TaskRecord } from './types.js';

export { PARENT_TASK_META_KEY, RELATED_TASK_META_KEY, TASK_INFO_META_KEY } from '../contract.js';

/**
 * Each tool's `keyArgument` by tool name, filled as tool registries are built. Process-wide
 * because a TaskRecord names only its tool; tools of one name are expected to agree on it.
 */
const keyArgumentNames = new Map<string, string>();

export function rememberKeyArguments(tools: readonly { name: string; keyArgument?: string }[]): void {
    for (const tool of tools) {
        if (tool.keyArgument) {
            keyArgumentNames.set(tool.name, tool.keyArgument);
        } else {
            keyArgumentNames.delete(tool.name);
        }
    }
}

/** The owner's view of what a task runs and for whom. */
export function taskInfo(record: TaskRecord): TaskInfo {
    const info: TaskInfo = { toolName: record.toolName, args: record.args, clientName: record.clientName, worker: record.worker };
    const keyName = keyArgumentNames.get(record.toolName);
    const value = keyName === undefined ? undefined : record.args[keyName];
    if ((typeof value === 'string' && value !== '') || typeof value === 'number') {
        info.keyArgument = String(value);
    }
    return info;
}

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
            meta[TASK_INFO_META_KEY] = taskInfo(record);
        }
        task._meta = meta;
    }
    return task;
}

export function relatedTaskMeta(taskId: string): Record<string, unknown> {
    return { [RELATED_TASK_META_KEY]: { taskId } };
}
