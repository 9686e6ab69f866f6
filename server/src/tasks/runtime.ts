import { errorMessage, type Logger } from '../log.js';
import { ErrorCodes, invalidParams, RpcError } from '../rpc/errors.js';
import { ToolRegistry } from '../tools/registry.js';
import { textResult, type CallToolResult, type ChildTask, type ExternalStatus, type ExternalTaskHandler, type SpawnOptions, type ToolDefinition } from '../tools/types.js';
import type { ClientHub, ClientIdentity, InputCapability } from './hub.js';
import { cancelChildren, cancelOrphans, type CascadeHost } from './cascade.js';
import { LocalTasks, LocalWork } from './localWork.js';
import { notifyProgress, notifyStatus } from './notifier.js';
import { Spawner } from './spawner.js';
import { TaskContext, type TaskContextHost } from './taskContext.js';
import { isTerminal, type TaskEvent, type TaskOutcome, type TaskPage, type TaskRecord, type TaskStore, type TerminalStatus } from './types.js';
import { TaskWaiters } from './waiters.js';
import { relatedTaskMeta } from './wire.js';

export { OWNER_PROGRESS_METHOD, TASK_STATUS_METHOD } from './notifier.js';
const LIST_PAGE_SIZE = 100;
const MIN_TTL_MS = 1000;

export interface RuntimeLimits {
    defaultTtlMs: number;
    maxTtlMs: number;
    maxTasksPerClient: number;
    pollIntervalMs: number;
    /** How many levels of sub-tasks may nest below a task a client started (its children are level 1). */
    maxSubtaskDepth: number;
    /** How many sub-tasks one task may start over its life. */
    maxChildrenPerTask: number;
}

export interface CreateTaskOptions {
    ttl?: number;
    progressToken?: string | number;
    parentTaskId?: string;
}

/**
 * Runs tools as tasks: creates them in the store, executes the work with an AbortSignal,
 * records exactly one outcome, and turns store events into notifications and wake-ups.
 */
export class TaskRuntime implements TaskContextHost {
    private readonly local = new LocalTasks();
    private readonly waiters: TaskWaiters;
    private readonly subscription;
    private readonly spawner: Spawner;
    private readonly cascade: CascadeHost;
    private closing = false;

    constructor(
        readonly store: TaskStore,
        readonly tools: ToolRegistry,
        private readonly hub: ClientHub,
        readonly limits: RuntimeLimits,
        readonly log: Logger,
        readonly workerId: string,
    ) {
        this.waiters = new TaskWaiters(taskId => store.get(taskId));
        this.cascade = {
            store,
            log,
            cancelTask: (record, message, cascadeFrom) => this.cancelTask(record, message, cascadeFrom),
            finishTask: (taskId, status, outcome, message) => this.finish(taskId, status, outcome, message),
            childrenHere: parentTaskId => this.local.childrenHere(parentTaskId),
        };
        this.subscription = store.onEvent(event => this.onStoreEvent(event));
        this.spawner = new Spawner({
            store,
            tools,
            limits,
            createTask: (client, tool, args, options) => this.createTask(client, tool, args, options),
            result: (client, taskId, signal) => this.result(client, taskId, signal),
            cancelTask: (task, message) => this.cancelTask(task, message),
            stopLocal: (taskId, reason) => this.stopLocal(taskId, reason),
        });
    }

    get runningCount(): number {
        return this.local.size;
    }

    clampTtl(requested: number | undefined): number {
        const ttl = requested ?? this.limits.defaultTtlMs;
        return Math.min(Math.max(ttl, MIN_TTL_MS), this.limits.maxTtlMs);
    }

    async createTask(client: ClientIdentity, tool: ToolDefinition, args: Record<string, unknown>, options: CreateTaskOptions = {}): Promise<TaskRecord> {
        if (this.closing) {
            throw new RpcError(ErrorCodes.InternalError, 'Server is shutting down');
        }
        const record = await this.store.create(
            {
                clientKey: client.clientKey,
                clientName: client.clientName,
                toolName: tool.name,
                args,
                ttl: this.clampTtl(options.ttl),
                pollInterval: this.limits.pollIntervalMs,
                parentTaskId: options.parentTaskId,
                progressToken: options.progressToken,
                worker: this.workerId,
            },
            this.limits.maxTasksPerClient,
        );
        const { parentTaskId } = options;
        const depth = parentTaskId ? (this.local.get(parentTaskId)?.depth ?? 0) + 1 : 0;
        const work = new LocalWork(record.clientKey, depth, parentTaskId);
        this.local.add(record.taskId, work);
        // Neither rejects: each logs a store write that fails (the store unreachable).
        if (tool.external) {
            void this.startExternal(record, tool.external, args, work);
        } else {
            this.runLocal(record, tool, args, work);
        }
        return record;
    }

    /** A task the caller may see; the same -32602 for unknown, expired and foreign ids. */
    async get(client: ClientIdentity, taskId: string): Promise<TaskRecord> {
        let record = await this.visible(client, taskId);
        if (record.externalRef && !isTerminal(record.status)) {
            record = (await this.syncExternal(record)) ?? record;
        }
        return record;
    }

    /** Waits (on events, not by polling) until the task is terminal, then returns its outcome. */
    async result(client: ClientIdentity, taskId: string, signal?: AbortSignal): Promise<{ task: TaskRecord; outcome: TaskOutcome }> {
        let record = await this.get(client, taskId);
        while (!isTerminal(record.status)) {
            await this.waitForChange(record, signal);
            record = await this.visible(client, taskId);
        }
        const outcome = (await this.store.getOutcome(taskId)) ?? { result: textResult(`Task ${taskId} ended (${record.status}) without a stored result`, true) };
        return { task: record, outcome };
    }

    async list(client: ClientIdentity, cursor?: string, parentTaskId?: string): Promise<TaskPage> {
        return this.store.list({ clientKey: client.isOwner ? undefined : client.clientKey, parentTaskId, cursor, limit: LIST_PAGE_SIZE });
    }

    async cancel(client: ClientIdentity, taskId: string): Promise<TaskRecord> {
        const record = await this.visible(client, taskId);
        if (isTerminal(record.status)) {
            throw invalidParams(`Task ${taskId} is already ${record.status} and cannot be cancelled`);
        }
        const message = client.isOwner && client.clientKey !== record.clientKey ? 'Cancelled from the MCP Tasks sidebar' : 'Cancelled by the client';
        const finished = await this.cancelTask(record, message);
        if (!finished) {
            const now = await this.store.get(taskId);
            throw invalidParams(now ? `Task ${taskId} is already ${now.status} and cannot be cancelled` : `Task not found: ${taskId}`);
        }
        return finished;
    }

    /** Stops accepting work and cancels what runs here, each with a status message saying why. */
    async shutdown(reason = 'Server shutting down'): Promise<void> {
        this.closing = true;
        await Promise.all(this.localRoots(() => true).map(taskId => this.finish(taskId, 'cancelled', { result: textResult(`Task cancelled: ${reason}`, true) }, reason)));
    }

    /** Cancels the live tasks of a client that is gone for good (its session closed). */
    async cancelClientTasks(clientKey: string, reason: string): Promise<void> {
        const mine = this.localRoots(work => work.clientKey === clientKey);
        await Promise.all(mine.map(taskId => this.finish(taskId, 'cancelled', { result: textResult(`Task cancelled: ${reason}`, true) }, reason)));
    }

    dispose(): void {
        this.subscription.dispose();
        this.spawner.dispose();
        const reason = new Error('Runtime disposed');
        for (const [, work] of this.local.entries()) {
            work.stop(reason);
        }
        this.local.clear();
    }

    publishProgress(record: TaskRecord, progress: number, total?: number, message?: string): void {
        this.store.publishProgress(record, { progress, total, message });
    }

    spawn(record: TaskRecord, work: LocalWork, toolName: string, args?: Record<string, unknown>, options?: SpawnOptions): Promise<ChildTask> {
        return this.spawner.spawn(record, work, toolName, args, options);
    }

    /**
     * Runs the tool and records its end. A then() pair rather than an async function: a parked
     * async frame keeps some 500 bytes per running task. Nothing here rejects: a store write that
     * fails at the end (the store unreachable) is logged.
     */
    private runLocal(record: TaskRecord, tool: ToolDefinition, args: Record<string, unknown>, work: LocalWork): void {
        let running: Promise<CallToolResult>;
        try {
            running = tool.run!(args, new TaskContext(record, work, this));
        } catch (err) {
            running = Promise.reject(err);
        }
        void running.then(
            result => this.ended(record.taskId, work, tool, result, undefined),
            (err: unknown) => this.ended(record.taskId, work, tool, undefined, err),
        );
    }

    private ended(taskId: string, work: LocalWork, tool: ToolDefinition, result: CallToolResult | undefined, err: unknown): void {
        work.returned = true;
        let finishing: Promise<unknown>;
        try {
            if (result) {
                finishing = this.finish(taskId, result.isError ? 'failed' : 'completed', { result }, result.isError ? resultText(result) : undefined);
            } else if (work.stopped) {
                finishing = Promise.resolve();
            } else {
                finishing = this.finish(taskId, 'failed', outcomeOfError(tool.name, err), errorMessage(err));
            }
        } catch (failure) {
            finishing = Promise.reject(failure);
        }
        void finishing.then(
            () => this.local.remove(taskId),
            failure => {
                this.warnUnrecorded(taskId, failure);
                this.local.remove(taskId);
            },
        );
    }

    private warnUnrecorded(taskId: string, err: unknown): void {
        this.log.warn(`[tasks] could not record the end of task ${taskId}: ${errorMessage(err)}`);
    }

    private async startExternal(record: TaskRecord, handler: ExternalTaskHandler, args: Record<string, unknown>, work: LocalWork): Promise<void> {
        try {
            const ref = await handler.start(args, record.taskId);
            record.externalRef = ref;
            await this.store.setExternalRef(record.taskId, ref);
            const unwatch = handler.watch?.(ref, status => void this.applyExternal(record, handler, status).catch(err => this.log.warn(`[external] ${record.taskId}: ${errorMessage(err)}`)));
            work.release = unwatch;
            if (work.stopped) {
                unwatch?.();
            }
        } catch (err) {
            this.local.remove(record.taskId);
            await this.finish(record.taskId, 'failed', outcomeOfError(record.toolName, err), errorMessage(err)).catch(failure => this.warnUnrecorded(record.taskId, failure));
        }
    }

    /** Asks the external system for the truth about a task, and records it. */
    private async syncExternal(record: TaskRecord): Promise<TaskRecord | undefined> {
        const handler = this.tools.get(record.toolName)?.external;
        if (!handler || !record.externalRef) {
            return undefined;
        }
        const status = await handler.getStatus(record.externalRef);
        return this.applyExternal(record, handler, status);
    }

    private async applyExternal(record: TaskRecord, handler: ExternalTaskHandler, status: ExternalStatus): Promise<TaskRecord | undefined> {
        if (status.status === 'working') {
            return undefined;
        }
        try {
            const outcome: TaskOutcome = status.status === 'cancelled' ? { result: textResult(status.statusMessage ?? 'External job cancelled', true) } : { result: await handler.getResult(record.externalRef!) };
            const message = status.statusMessage ?? (status.status === 'failed' && 'result' in outcome ? resultText(outcome.result) : undefined);
            return await this.finish(record.taskId, status.status, outcome, message);
        } catch (err) {
            return this.finish(record.taskId, 'failed', outcomeOfError(record.toolName, err), errorMessage(err));
        }
    }

    async requestInput(record: TaskRecord, work: LocalWork, capability: InputCapability, method: string, params: object, waitingMessage: string): Promise<Record<string, unknown>> {
        // The task's own client answers when it can; otherwise the owner (the editor) answers for it.
        const link = this.hub.pickFor(record.clientKey, capability) ?? this.hub.pickOwner(capability);
        if (!link) {
            throw new Error(
                `The client that started this task cannot answer ${capability} requests (it did not declare the ${capability} capability), and no editor is connected to answer for it`,
            );
        }
        const { taskId } = record;
        const signal = work.signal;
        work.pendingInput++;
        if (work.pendingInput === 1) {
            await this.store.setStatus(taskId, 'input_required', waitingMessage);
        }
        try {
            const withMeta = params as { _meta?: Record<string, unknown> };
            return await link.request(method, { ...params, _meta: { ...withMeta._meta, ...relatedTaskMeta(taskId) } }, { relatedTaskId: taskId, signal });
        } catch (err) {
            // The client's error answer is this tool's failure, not the error tools/call would return:
            // passed through, a -32602 from tasks/result would read as "no such task".
            if (err instanceof RpcError && !signal.aborted) {
                throw new Error(err.code === ErrorCodes.ConnectionClosed ? err.message : `The client answered ${method} with an error: ${err.message} (code ${err.code})`, { cause: err });
            }
            throw err;
        } finally {
            work.pendingInput--;
            if (work.pendingInput === 0 && !signal.aborted) {
                await this.store.setStatus(taskId, 'working');
            }
        }
    }

    /** Local tasks whose parent does not run here: cancelling these reaches the rest by cascade, each child naming its parent. */
    private localRoots(include: (work: LocalWork) => boolean): string[] {
        return [...this.local.entries()].filter(([, work]) => include(work) && !(work.parentTaskId && this.local.has(work.parentTaskId))).map(([taskId]) => taskId);
    }

    /** Cancels one task: its external job, then (through finish) its sub-tasks, then the task itself. */
    private async cancelTask(record: TaskRecord, message: string, cascadeFrom?: string): Promise<TaskRecord | undefined> {
        const handler = this.tools.get(record.toolName)?.external;
        if (handler && record.externalRef) {
            // Stop listening first: the job system's own "cancelled" must not win the race to finish().
            this.stopLocal(record.taskId, new Error(`Task cancelled: ${message}`));
            await handler.cancel(record.externalRef).catch(err => this.log.warn(`[external] cancel of ${record.taskId} failed: ${errorMessage(err)}`));
        }
        const outcome: TaskOutcome = { result: textResult(`Task cancelled: ${message}`, true), ...(cascadeFrom ? { cascadeFrom } : {}) };
        return this.finish(record.taskId, 'cancelled', outcome, message);
    }

    /**
     * Every terminal transition goes through here. Live sub-tasks are cancelled first, depth-first,
     * so no child outlives its parent and each child's end is published before its parent's. A task
     * being cancelled is stopped before that, so its code cannot answer a child's cancellation by failing.
     */
    private async finish(taskId: string, status: TerminalStatus, outcome: TaskOutcome, statusMessage?: string): Promise<TaskRecord | undefined> {
        const work = this.local.get(taskId);
        if (status === 'cancelled') {
            this.stopLocal(taskId, new Error(`Task cancelled${statusMessage ? `: ${statusMessage}` : ''}`));
        }
        // Only the process running a task starts its children: one that started none skips the lookup.
        if (work && work.children === 0) {
            return this.store.finish(taskId, status, outcome, statusMessage);
        }
        // A store that cannot be read must not lose the outcome: finish() below keeps it for later,
        // and the children here stop anyway when its status event arrives (cancelOrphans).
        const record = await this.store.get(taskId).catch(() => undefined);
        if (record && !isTerminal(record.status)) {
            await cancelChildren(this.cascade, record, status === 'cancelled' ? 'was cancelled' : status).catch(err => this.log.warn(`[subtasks] cancelling the children of ${taskId} failed: ${errorMessage(err)}`));
        }
        return this.store.finish(taskId, status, outcome, statusMessage);
    }

    private async visible(client: ClientIdentity, taskId: string): Promise<TaskRecord> {
        const record = await this.store.get(taskId);
        if (!record || (!client.isOwner && record.clientKey !== client.clientKey)) {
            throw invalidParams(`Task not found: ${taskId}`);
        }
        return record;
    }

    private waitForChange(record: TaskRecord, signal?: AbortSignal): Promise<void> {
        // An external system without push is asked at the task's poll interval while someone waits.
        const handler = record.externalRef ? this.tools.get(record.toolName)?.external : undefined;
        const pollWhileWaiting =
            handler && !handler.watch
                ? () => {
                      const poll = setInterval(() => void this.syncExternal(record).catch(() => undefined), record.pollInterval);
                      return () => clearInterval(poll);
                  }
                : undefined;
        return this.waiters.next(record, signal, pollWhileWaiting);
    }

    private onStoreEvent(event: TaskEvent): void {
        switch (event.type) {
            case 'status': {
                const { task } = event;
                if (isTerminal(task.status)) {
                    const work = this.local.remove(task.taskId);
                    // Code that already returned has nothing to abort (and the reason costs an Error).
                    if (work && !work.returned) {
                        work.stop(stopReason(`Task ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`));
                    }
                    cancelOrphans(this.cascade, task.taskId, `(${task.toolName}) ${task.status === 'cancelled' ? 'was cancelled' : task.status}`);
                }
                this.waiters.wake(task.taskId);
                notifyStatus(this.hub, task, event.created === true);
                break;
            }
            case 'deleted':
                this.stopLocal(event.taskId, new Error('Task expired'));
                cancelOrphans(this.cascade, event.taskId, 'expired');
                this.waiters.wake(event.taskId);
                break;
            case 'resync':
                // Events may have been missed (a shared store reconnected): every waiter re-reads,
                // and local work whose task ended elsewhere meanwhile stops.
                for (const taskId of this.waiters.taskIds) {
                    this.waiters.wake(taskId);
                }
                void this.recheckLocal();
                break;
            case 'progress':
                notifyProgress(this.hub, event);
                break;
        }
    }

    private async recheckLocal(): Promise<void> {
        for (const taskId of this.local.ids()) {
            const now = await this.store.get(taskId).catch(() => null);
            if (now === undefined) {
                this.stopLocal(taskId, new Error('Task expired'));
            } else if (now && isTerminal(now.status)) {
                this.stopLocal(taskId, new Error(`Task ${now.status}${now.statusMessage ? `: ${now.statusMessage}` : ''}`));
            }
        }
    }

    private stopLocal(taskId: string, reason: Error): void {
        this.local.remove(taskId)?.stop(reason);
    }
}

/**
 * The abort reason for work whose task ended: its message is what matters, and a stack trace
 * (captured through the whole async chain, some 10-20 µs per task) would only point in here.
 */
function stopReason(message: string): Error {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
        return new Error(message);
    } finally {
        Error.stackTraceLimit = limit;
    }
}

/** The text of a result, for a failed task's statusMessage (VS Code shows only that). */
export function resultText(result: CallToolResult): string {
    const text = result.content
        .map(part => (part.type === 'text' ? part.text : ''))
        .join(' ')
        .trim();
    return text || 'The tool reported an error';
}

/** A thrown RpcError is what the call would have returned; anything else is a tool error result. */
export function outcomeOfError(toolName: string, err: unknown): TaskOutcome {
    if (err instanceof RpcError) {
        return { error: err.toJSON() };
    }
    return { result: textResult(`Tool ${toolName} failed: ${errorMessage(err)}`, true) };
}
