import type { JsonRpcErrorObject } from '../rpc/messages.js';
import type { CallToolResult } from '../mcpTypes.js';

import type { LiveStatus, TaskFlags, TaskStatus, TerminalStatus } from '../contract.js';

export { isTerminal, type LiveStatus, type TaskFlags, type TaskStatus, type TerminalStatus } from '../contract.js';

/** A task as the store keeps it: the wire fields plus what the server needs to bind and describe it (and its flags). */
export interface TaskRecord extends TaskFlags {
    taskId: string;
    status: TaskStatus;
    statusMessage?: string;
    createdAt: string;
    lastUpdatedAt: string;
    /** Retention in milliseconds, counted from creation and restarted on each terminal transition. */
    ttl: number;
    pollInterval: number;
    /** Who may see the task: the binding key of the client that created it. */
    clientKey: string;
    /** A human label for that client (its `clientInfo.name`), for the owner's view. */
    clientName?: string;
    toolName: string;
    args: Record<string, unknown>;
    parentTaskId?: string;
    progressToken?: string | number;
    /** Which server process runs the work (several replicas may share a store). */
    worker?: string;
    /** A reference into an external job system, for tools whose tasks live there. */
    externalRef?: string;
    /** Creation order, for pagination. */
    seq: number;
}

export interface CreateOptions {
    /**
     * The task's work starts before it is written (durable store): the store returns it at once, and
     * keeps it in memory if it cannot be written (the failure is logged), since its work has begun.
     */
    startsAtOnce?: boolean;
}

/** What a store is given to create a task: the record's fields fixed at creation, so none can be given that the record does not keep. */
export type NewTask = Pick<TaskRecord, 'clientKey' | 'clientName' | 'toolName' | 'args' | 'ttl' | 'pollInterval' | 'parentTaskId' | 'progressToken' | 'worker'> & TaskFlags;

/**
 * What the original request would have returned: a tool result or a JSON-RPC error. `cascadeFrom`
 * marks a child cancelled because its parent is being cancelled: stored with the outcome so the
 * parent's worker, in whatever process, stops instead of treating it as a child failure.
 */
export type TaskOutcome = ({ result: CallToolResult } | { error: JsonRpcErrorObject }) & { cascadeFrom?: string };

export interface ProgressUpdate {
    progress: number;
    total?: number;
    message?: string;
}

export type TaskEvent =
    /** `created` marks the first event of a task; it is not a status change for the client. */
    | { type: 'status'; task: TaskRecord; created?: boolean }
    | { type: 'deleted'; taskId: string; clientKey: string }
    | { type: 'progress'; taskId: string; clientKey: string; progressToken?: string | number; update: ProgressUpdate }
    /** A shared store reconnected: events may have been missed, so listeners re-read what they wait on. */
    | { type: 'resync' }
    /** A 2026-07-28 client answered input requests of a task (tasks/update), in whatever process. */
    | { type: 'input'; taskId: string; responses: Record<string, unknown> };

export interface TaskPage {
    tasks: TaskRecord[];
    nextCursor?: string;
}

export interface ListQuery {
    /** Only this client's tasks; undefined lists every client's (the owner's view). */
    clientKey?: string;
    parentTaskId?: string;
    cursor?: string;
    limit: number;
}

/**
 * What one client may keep in the store, finished tasks included (they hold their arguments,
 * progress token and result until their ttl runs out): a count and a size (characters of JSON).
 */
export interface RetentionBudget {
    maxTasks: number;
    maxBytes: number;
}

export interface Disposable {
    dispose(): void;
}

/**
 * Where tasks live. Every method is async so a networked store (Redis) fits the same shape.
 * Implementations must make `finish` atomic: exactly one terminal transition per task.
 * Events are delivered for changes made through any process sharing the store.
 */
export interface TaskStore {
    /** The replica name a shared store holds leases for; the runtime uses it as its own. */
    readonly workerId?: string;
    /**
     * Creates a `working` task; rejects with LimitExceeded when the client already has `maxLive`
     * live tasks, or (when a budget is given) holds its count or size of tasks, finished ones included.
     * A store that writes its tasks to a file resolves once the task is written, unless `startsAtOnce`
     * (see `written`).
     */
    create(input: NewTask, maxLive: number, budget?: RetentionBudget, options?: CreateOptions): Promise<TaskRecord>;
    /**
     * A store that writes its tasks to a file: settled once what waits to be written of `taskId` is
     * written, or could not be; undefined when nothing waits. Stores that answer from where they
     * keep their tasks have none.
     */
    written?(taskId: string): Promise<void> | undefined;
    get(taskId: string): Promise<TaskRecord | undefined>;
    /**
     * A non-terminal change; undefined when the task is gone or already terminal. `quiet`: no
     * status event (a message-only change, announced by the progress notification that carries it).
     */
    setStatus(taskId: string, status: LiveStatus, statusMessage?: string, quiet?: boolean): Promise<TaskRecord | undefined>;
    /** The atomic terminal guard: stores the outcome, restarts retention; undefined if gone or already terminal. */
    finish(taskId: string, status: TerminalStatus, outcome: TaskOutcome, statusMessage?: string): Promise<TaskRecord | undefined>;
    /** Records an external reference for a task (see ExternalTaskHandler). */
    setExternalRef(taskId: string, ref: string): Promise<void>;
    getOutcome(taskId: string): Promise<TaskOutcome | undefined>;
    /** Rejects with InvalidParams for a cursor it did not issue. */
    list(query: ListQuery): Promise<TaskPage>;
    /** Announces progress to every process sharing the store. */
    publishProgress(task: TaskRecord, update: ProgressUpdate): void;
    onEvent(listener: (event: TaskEvent) => void): Disposable;
    /**
     * The client is gone for good (its HTTP session ended): no one but the owner can reach its
     * tasks any more. They stay until their ttl, but all gone clients' tasks together are held to
     * one `budget`, the oldest deleted first. Optional: a store without it keeps them to their ttl.
     * A shared store does it in its own time (the promise); it never rejects.
     */
    orphan?(clientKey: string, budget: RetentionBudget): void | Promise<void>;
    /**
     * Shared stores only (a memory store's process holds them itself): the open input requests of a
     * 2026-07-28 client's task, readable from every process (undefined clears them), and the way a
     * client's answers reach the process that runs the task (an `input` event there).
     */
    setInputRequests?(taskId: string, requests: Record<string, { method: string; params: Record<string, unknown> }> | undefined, ttlMs: number): Promise<void>;
    getInputRequests?(taskId: string): Promise<Record<string, { method: string; params: Record<string, unknown> }> | undefined>;
    publishInputResponses?(taskId: string, responses: Record<string, unknown>): Promise<void>;
    /** Shared stores: a random secret made by the first process that asks for `name`, the same for every later one (the requestState key of replicas). */
    sharedSecret?(name: string): Promise<string>;
    close(): Promise<void>;
}
