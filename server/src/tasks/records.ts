import type { NewTask, TaskFlags, TaskRecord, TaskStatus } from './types.js';

/**
 * `T` with every field written out, the optional ones too: an object literal that `satisfies
 * Complete<T>` fails to compile when it leaves a field of `T` out or adds one `T` lacks. The field
 * lists below are checked this way, so a field added to a task (its contract, its record, the
 * flags) cannot be dropped silently by a copy that was not told of it.
 */
export type Complete<T> = { [K in keyof Required<T>]: T[K] | undefined };

/**
 * The key a stdio client's task gets when a later server takes it over: the pipe it was bound to
 * is gone, and the client that restarted its server is on a new one. Such a task is found by its
 * id by any stdio client of the new server (the id is unguessable, and the file is this user's
 * alone), but listed to none: concurrent hosts sharing the data folder never list each other's.
 */
export const ADOPTED_STDIO_KEY = 'stdio:adopted';

/** Whether `clientKey` may read a task bound to `taskKey`: its own, or (a stdio client) one a durable store took over from a stdio server that is gone. */
export function mayRead(clientKey: string, taskKey: string): boolean {
    return taskKey === clientKey || (taskKey === ADOPTED_STDIO_KEY && clientKey.startsWith('stdio:'));
}

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
    } satisfies Complete<RecordBase>;
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
    } satisfies Complete<TaskRecord>;
}

/** Every flag of TaskFlags, by name: a flag added to the contract fails to compile here until it is listed. */
const FLAGS = Object.keys({ background: true, chat: true } satisfies Complete<TaskFlags>) as (keyof TaskFlags)[];

/** The flags `from` sets (TaskFlags), copied onto `to`: only those that are set, so a record or an owner's TaskInfo carries no empty ones. */
export function copyFlags(from: TaskFlags, to: TaskFlags): void {
    for (const flag of FLAGS) {
        if (from[flag]) {
            to[flag] = true;
        }
    }
}
