import type { NewTask, TaskFlags, TaskRecord, TaskStatus } from './types.js';

/** The part of a record fixed at creation. */
export type RecordBase = Omit<TaskRecord, 'status' | 'statusMessage' | 'lastUpdatedAt' | 'externalRef' | 'seq'>;

export function recordBase(input: NewTask, taskId: string, createdAt: string): RecordBase {
    return {
        taskId,
        createdAt,
        ttl: input.ttl,
        pollInterval: input.pollInterval,
        clientKey: input.clientKey,
        clientName: input.clientName,
        toolName: input.toolName,
        args: input.args,
        parentTaskId: input.parentTaskId,
        progressToken: input.progressToken,
        worker: input.worker,
        background: input.background,
        chat: input.chat,
    };
}

/**
 * A record with every field written in one order, so all records share one hidden class: a copy
 * made here is several times cheaper than an object spread with changes (measured in finish()).
 */
export function taskRecord(base: RecordBase, status: TaskStatus, statusMessage: string | undefined, lastUpdatedAt: string, externalRef: string | undefined, seq: number): TaskRecord {
    return {
        taskId: base.taskId,
        status,
        statusMessage,
        createdAt: base.createdAt,
        lastUpdatedAt,
        ttl: base.ttl,
        pollInterval: base.pollInterval,
        clientKey: base.clientKey,
        clientName: base.clientName,
        toolName: base.toolName,
        args: base.args,
        parentTaskId: base.parentTaskId,
        progressToken: base.progressToken,
        worker: base.worker,
        background: base.background,
        chat: base.chat,
        externalRef,
        seq,
    };
}

/**
 * The flags `from` sets (TaskFlags), copied onto `to`: only those that are set, so a record or an
 * owner's TaskInfo carries no empty ones. A new flag is copied here, in recordBase and in taskRecord.
 */
export function copyFlags(from: TaskFlags, to: TaskFlags): void {
    if (from.background) {
        to.background = true;
    }
    if (from.chat) {
        to.chat = true;
    }
}
