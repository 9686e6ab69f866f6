import { PARENT_TASK_META_KEY, RELATED_TASK_META_KEY, TASK_INFO_META_KEY, type TaskInfo } from '../contract.js';
import type { Complete } from './records.js';
import type { TaskRecord } from './types.js';

export { PARENT_TASK_META_KEY, RELATED_TASK_META_KEY, TASK_INFO_META_KEY } from '../contract.js';

/** What the owner's view needs from the tool set: the name of each tool's key argument. */
export interface KeyArguments {
    keyArgumentOf(toolName: string): string | undefined;
}

/** What the owner's view adds to a record: the key argument, and (from the runtime) whether the task's client still waits. */
export interface OwnerFacts extends KeyArguments {
    stoppedWaitingAt?(taskId: string): string | undefined;
}

/** The owner's view of what a task runs and for whom. */
export function taskInfo(record: TaskRecord, tools: OwnerFacts): TaskInfo {
    const keyName = tools.keyArgumentOf(record.toolName);
    const value = keyName === undefined ? undefined : record.args[keyName];
    // Every field of the contract's TaskInfo is written here (Complete): one added there fails to compile until it is set.
    const info = {
        toolName: record.toolName,
        args: record.args,
        clientName: record.clientName,
        worker: record.worker,
        keyArgument: (typeof value === 'string' && value !== '') || typeof value === 'number' ? String(value) : undefined,
        stoppedWaitingAt: tools.stoppedWaitingAt?.(record.taskId),
        // Flags only when set: the owner's view carries no empty ones.
        background: record.background || undefined,
        chat: record.chat || undefined,
    } satisfies Complete<TaskInfo>;
    return info;
}

/**
 * The Task object as the spec defines it, plus namespaced `_meta`. `owner` is given only when the
 * task goes to an owner, whose wire form carries the task info.
 */
export function toWireTask(record: TaskRecord, owner?: OwnerFacts): Record<string, unknown> {
    const task: Record<string, unknown> = {
        taskId: record.taskId,
        status: record.status,
        createdAt: record.createdAt,
        lastUpdatedAt: record.lastUpdatedAt,
        ttl: record.ttl,
        pollInterval: record.pollInterval,
    };
    return withTaskTail(task, record, owner);
}

/**
 * What both revisions' task objects end with: the status message, and `_meta` with the parent
 * task and (for the owner) the task info. Shared so the two wire forms cannot drift apart.
 */
export function withTaskTail(task: Record<string, unknown>, record: TaskRecord, owner?: OwnerFacts): Record<string, unknown> {
    if (record.statusMessage !== undefined) {
        task.statusMessage = record.statusMessage;
    }
    if (record.parentTaskId !== undefined || owner) {
        const meta: Record<string, unknown> = {};
        if (record.parentTaskId !== undefined) {
            meta[PARENT_TASK_META_KEY] = record.parentTaskId;
        }
        if (owner) {
            meta[TASK_INFO_META_KEY] = taskInfo(record, owner);
        }
        task._meta = meta;
    }
    return task;
}

export function relatedTaskMeta(taskId: string): Record<string, unknown> {
    return { [RELATED_TASK_META_KEY]: { taskId } };
}
