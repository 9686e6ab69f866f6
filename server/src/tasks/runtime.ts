import { errorMessage, type Logger } from '../log.js';
import { ErrorCodes, invalidParams, RpcError } from '../rpc/errors.js';
import { ToolRegistry } from '../tools/registry.js';
import { textResult, type CallToolResult, type ExternalStatus, type ExternalTaskHandler, type ToolContext, type ToolDefinition } from '../tools/types.js';
import type { ClientHub, ClientIdentity, InputCapability } from './hub.js';
import { Spawner } from './spawner.js';
import { isTerminal, type TaskEvent, type TaskOutcome, type TaskPage, type TaskRecord, type TaskStore, type TerminalStatus } from './types.js';
import { relatedTaskMeta, toWireTask } from './wire.js';

export const OWNER_PROGRESS_METHOD = 'notifications/mcp-tasks/progress';
export const TASK_STATUS_METHOD = 'notifications/tasks/status';
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

interface LocalWork {
    clientKey: string;
    controller: AbortController;
    pendingInput: number;
    release?: () => void;
    parentTaskId?: string;
    /** 0 for a task a client started, parent's + 1 for a sub-task. */
    depth: number;
    /** Sub-tasks started so far (reserved before the store call, so concurrent spawns count). */
    children: number;
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
export class TaskRuntime {
    private readonly local = new Map<string, LocalWork>();
    private readonly waiters = new Map<string, Set<() => void>>();
    private readonly subscription;
    private readonly spawner: Spawner;
    private closing = false;

    constructor(
        readonly store: TaskStore,
        readonly tools: ToolRegistry,
        private readonly hub: ClientHub,
        readonly limits: RuntimeLimits,
        private readonly log: Logger,
        readonly workerId: string,
    ) {
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
        const work: LocalWork = { clientKey: record.clientKey, controller: new AbortController(), pendingInput: 0, parentTaskId, depth, children: 0 };
        this.local.set(record.taskId, work);
        // A store write that fails here (the store unreachable) is logged, not an unhandled rejection.
        const settled = tool.external ? this.startExternal(record, tool.external, args, work) : this.runLocal(record, tool, args, work);
        void settled.catch(err => this.log.warn(`[tasks] could not record the end of task ${record.taskId}: ${errorMessage(err)}`));
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
        for (const work of this.local.values()) {
            work.controller.abort(new Error('Runtime disposed'));
        }
        this.local.clear();
    }

    /** The context a tool gets when it runs as a task. */
    private taskContext(record: TaskRecord, work: LocalWork): ToolContext {
        const signal = work.controller.signal;
        return {
            signal,
            taskId: record.taskId,
            log: this.log,
            progress: (progress, total, message) => {
                if (!signal.aborted) {
                    this.store.publishProgress(record, { progress, total, message });
                }
            },
            elicit: async params => {
                const raw = await this.requestInput(record, work, 'elicitation', 'elicitation/create', params, `Waiting for the user: ${params.message}`);
                return parseReply((await sdkTypes()).ElicitResultSchema, raw, 'elicitation/create');
            },
            createMessage: async params => {
                const raw = await this.requestInput(record, work, 'sampling', 'sampling/createMessage', params, "Waiting for the client's language model");
                return parseReply((await sdkTypes()).CreateMessageResultSchema, raw, 'sampling/createMessage');
            },
            spawn: (toolName, args, options) => this.spawner.spawn(record, work, toolName, args, options),
        };
    }

    private async runLocal(record: TaskRecord, tool: ToolDefinition, args: Record<string, unknown>, work: LocalWork): Promise<void> {
        const { taskId } = record;
        try {
            const result = await tool.run!(args, this.taskContext(record, work));
            await this.finish(taskId, result.isError ? 'failed' : 'completed', { result }, result.isError ? resultText(result) : undefined);
        } catch (err) {
            if (!work.controller.signal.aborted) {
                const outcome = outcomeOfError(tool.name, err);
                await this.finish(taskId, 'failed', outcome, errorMessage(err));
            }
        } finally {
            this.local.delete(taskId);
        }
    }

    private async startExternal(record: TaskRecord, handler: ExternalTaskHandler, args: Record<string, unknown>, work: LocalWork): Promise<void> {
        try {
            const ref = await handler.start(args, record.taskId);
            record.externalRef = ref;
            await this.store.setExternalRef(record.taskId, ref);
            const unwatch = handler.watch?.(ref, status => void this.applyExternal(record, handler, status).catch(err => this.log.warn(`[external] ${record.taskId}: ${errorMessage(err)}`)));
            work.release = unwatch;
            if (work.controller.signal.aborted) {
                unwatch?.();
            }
        } catch (err) {
            this.local.delete(record.taskId);
            await this.finish(record.taskId, 'failed', outcomeOfError(record.toolName, err), errorMessage(err));
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

    private async requestInput(record: TaskRecord, work: LocalWork, capability: InputCapability, method: string, params: object, waitingMessage: string): Promise<Record<string, unknown>> {
        // The task's own client answers when it can; otherwise the owner (the editor) answers for it.
        const link = this.hub.pickFor(record.clientKey, capability) ?? this.hub.pickOwner(capability);
        if (!link) {
            throw new Error(
                `The client that started this task cannot answer ${capability} requests (it did not declare the ${capability} capability), and no editor is connected to answer for it`,
            );
        }
        const { taskId } = record;
        const signal = work.controller.signal;
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
        return [...this.local].filter(([, work]) => include(work) && !(work.parentTaskId && this.local.has(work.parentTaskId))).map(([taskId]) => taskId);
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
        if (status === 'cancelled') {
            this.stopLocal(taskId, new Error(`Task cancelled${statusMessage ? `: ${statusMessage}` : ''}`));
        }
        // A store that cannot be read must not lose the outcome: finish() below keeps it for later,
        // and the children here stop anyway when its status event arrives (cancelOrphans).
        const record = await this.store.get(taskId).catch(() => undefined);
        if (record && !isTerminal(record.status)) {
            await this.cancelChildren(record, status === 'cancelled' ? 'was cancelled' : status).catch(err => this.log.warn(`[subtasks] cancelling the children of ${taskId} failed: ${errorMessage(err)}`));
        }
        return this.store.finish(taskId, status, outcome, statusMessage);
    }

    /** Cancels the live children of `parent` (found through the store, wherever they run), one subtree at a time. */
    private async cancelChildren(parent: TaskRecord, how: string): Promise<void> {
        const message = `Cancelled because parent task ${parent.taskId} (${parent.toolName}) ${how}`;
        let cursor: string | undefined;
        do {
            const page = await this.store.list({ clientKey: parent.clientKey, parentTaskId: parent.taskId, cursor, limit: LIST_PAGE_SIZE });
            for (const child of page.tasks) {
                if (!isTerminal(child.status)) {
                    await this.cancelTask(child, message, parent.taskId);
                }
            }
            cursor = page.nextCursor;
        } while (cursor);
    }

    /** A safety net for a parent that ended some other way (another process, expiry): its children here stop too. */
    private cancelOrphans(parentTaskId: string, why: string): void {
        for (const [taskId, work] of this.local) {
            if (work.parentTaskId === parentTaskId) {
                const message = `Cancelled because parent task ${parentTaskId} ${why}`;
                void this.finish(taskId, 'cancelled', { result: textResult(`Task cancelled: ${message}`, true) }, message).catch(err => this.log.warn(`[subtasks] cancelling orphan ${taskId} failed: ${errorMessage(err)}`));
            }
        }
    }

    private async visible(client: ClientIdentity, taskId: string): Promise<TaskRecord> {
        const record = await this.store.get(taskId);
        if (!record || (!client.isOwner && record.clientKey !== client.clientKey)) {
            throw invalidParams(`Task not found: ${taskId}`);
        }
        return record;
    }

    private waitForChange(record: TaskRecord, signal?: AbortSignal): Promise<void> {
        return new Promise((resolve, reject) => {
            // An aborted signal fires no more 'abort' events: waiting on it would never end.
            if (signal?.aborted) {
                reject(signal.reason);
                return;
            }
            let set = this.waiters.get(record.taskId);
            if (!set) {
                set = new Set();
                this.waiters.set(record.taskId, set);
            }
            const waiters = set;
            // An external system without push is asked at the task's poll interval while someone waits.
            const handler = record.externalRef ? this.tools.get(record.toolName)?.external : undefined;
            const poll = handler && !handler.watch ? setInterval(() => void this.syncExternal(record).catch(() => undefined), record.pollInterval) : undefined;
            const release = () => {
                waiters.delete(done);
                if (waiters.size === 0) {
                    this.waiters.delete(record.taskId);
                }
                signal?.removeEventListener('abort', onAbort);
                clearInterval(poll);
            };
            const done = () => {
                release();
                resolve();
            };
            // Not done(): resolving first made the reject a no-op, so an abandoned tasks/result
            // looped back into a new wait (on a signal that never fires again) until the task ended.
            const onAbort = () => {
                release();
                reject(signal?.reason ?? new Error('Aborted'));
            };
            waiters.add(done);
            signal?.addEventListener('abort', onAbort, { once: true });
            // Re-check after subscribing: the change may have landed before the waiter did.
            void this.store.get(record.taskId).then(
                now => {
                    if (!now || now.status !== record.status || now.lastUpdatedAt !== record.lastUpdatedAt) {
                        done();
                    }
                },
                // The store failed: wake up, so the caller's re-read reports why.
                () => done(),
            );
        });
    }

    private wake(taskId: string): void {
        const set = this.waiters.get(taskId);
        if (set) {
            for (const done of [...set]) {
                done();
            }
        }
    }

    private onStoreEvent(event: TaskEvent): void {
        switch (event.type) {
            case 'status': {
                const { task } = event;
                if (isTerminal(task.status)) {
                    this.stopLocal(task.taskId, stopReason(`Task ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`));
                    this.cancelOrphans(task.taskId, `(${task.toolName}) ${task.status === 'cancelled' ? 'was cancelled' : task.status}`);
                }
                this.wake(task.taskId);
                if (!event.created) {
                    const wire = toWireTask(task);
                    for (const link of this.hub.linksFor(task.clientKey)) {
                        if (!link.identity.isOwner) {
                            link.notify(TASK_STATUS_METHOD, wire, task.taskId);
                        }
                    }
                }
                let ownerWire: Record<string, unknown> | undefined;
                for (const owner of this.hub.owners()) {
                    ownerWire ??= toWireTask(task, true);
                    owner.notify(TASK_STATUS_METHOD, ownerWire, task.taskId);
                }
                break;
            }
            case 'deleted':
                this.stopLocal(event.taskId, new Error('Task expired'));
                this.cancelOrphans(event.taskId, 'expired');
                this.wake(event.taskId);
                break;
            case 'resync':
                // Events may have been missed (a shared store reconnected): every waiter re-reads,
                // and local work whose task ended elsewhere meanwhile stops.
                for (const taskId of [...this.waiters.keys()]) {
                    this.wake(taskId);
                }
                void this.recheckLocal();
                break;
            case 'progress': {
                const { update, progressToken } = event;
                if (progressToken !== undefined) {
                    const params = { progressToken, ...update, _meta: relatedTaskMeta(event.taskId) };
                    for (const link of this.hub.linksFor(event.clientKey)) {
                        if (!link.identity.isOwner) {
                            link.notify('notifications/progress', params, event.taskId);
                        }
                    }
                }
                for (const owner of this.hub.owners()) {
                    owner.notify(OWNER_PROGRESS_METHOD, { taskId: event.taskId, ...update });
                }
                break;
            }
        }
    }

    private async recheckLocal(): Promise<void> {
        for (const taskId of [...this.local.keys()]) {
            const now = await this.store.get(taskId).catch(() => null);
            if (now === undefined) {
                this.stopLocal(taskId, new Error('Task expired'));
            } else if (now && isTerminal(now.status)) {
                this.stopLocal(taskId, new Error(`Task ${now.status}${now.statusMessage ? `: ${now.statusMessage}` : ''}`));
            }
        }
    }

    private stopLocal(taskId: string, reason: Error): void {
        const work = this.local.get(taskId);
        if (work) {
            this.local.delete(taskId);
            work.release?.();
            work.controller.abort(reason);
        }
    }
}

/** The SDK's schema module, loaded on first use: building its schemas costs some 30 ms at start-up. */
function sdkTypes(): Promise<typeof import('@modelcontextprotocol/sdk/types.js')> {
    return import('@modelcontextprotocol/sdk/types.js');
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

function parseReply<T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: { message: string } } }, raw: unknown, method: string): T {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
        throw new Error(`The client's answer to ${method} is malformed: ${parsed.error.message}`);
    }
    return parsed.data;
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
