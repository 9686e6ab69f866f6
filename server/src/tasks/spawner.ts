import { errorMessage } from '../log.js';
import { parseArguments, type ToolRegistry } from '../tools/registry.js';
import { ChildTaskError, SpawnError } from '../tools/subtasks.js';
import type { CallToolResult, ChildTask, SpawnOptions, ToolDefinition } from '../tools/types.js';
import type { ClientIdentity } from './hub.js';
import { isTerminal, type Disposable, type ProgressUpdate, type TaskEvent, type TaskOutcome, type TaskRecord, type TaskStore } from './types.js';

/** What the spawner may use of the runtime; everything about other tasks goes through the store. */
export interface SpawnHost {
    readonly store: TaskStore;
    readonly tools: ToolRegistry;
    readonly limits: { maxSubtaskDepth: number; maxChildrenPerTask: number };
    createTask(client: ClientIdentity, tool: ToolDefinition, args: Record<string, unknown>, options: { ttl?: number; parentTaskId?: string }): Promise<TaskRecord>;
    result(client: ClientIdentity, taskId: string, signal?: AbortSignal): Promise<{ task: TaskRecord; outcome: TaskOutcome }>;
    cancelTask(task: TaskRecord, message: string): Promise<unknown>;
    stopLocal(taskId: string, reason: Error): void;
}

/** The parent's local bookkeeping (its LocalWork in the runtime). */
export interface ParentWork {
    readonly signal: AbortSignal;
    readonly stopped: boolean;
    readonly depth: number;
    children: number;
}

/**
 * Implements `ctx.spawn`: checks the limits, creates the child through the runtime (so it is an
 * ordinary task of the same client), and hands back a ChildTask whose wait() rests on store events.
 */
export class Spawner {
    private readonly progressListeners = new Map<string, (update: ProgressUpdate) => void>();
    private readonly subscription: Disposable;

    constructor(private readonly host: SpawnHost) {
        this.subscription = host.store.onEvent(event => this.onEvent(event));
    }

    async spawn(parent: TaskRecord, work: ParentWork, toolName: string, args: Record<string, unknown> = {}, options: SpawnOptions = {}): Promise<ChildTask> {
        const { maxSubtaskDepth, maxChildrenPerTask } = this.host.limits;
        const refuse = (reason: ConstructorParameters<typeof SpawnError>[0], why: string) => new SpawnError(reason, `Cannot start sub-task ${toolName}: ${why}`);
        if (work.stopped) {
            throw refuse('parent_not_running', `task ${parent.taskId} (${parent.toolName}) is no longer running`);
        }
        const tool = this.host.tools.get(toolName);
        if (!tool) {
            throw refuse('unknown_tool', 'no such tool');
        }
        if (tool.taskSupport === 'forbidden') {
            throw refuse('task_forbidden', 'the tool cannot run as a task (taskSupport "forbidden")');
        }
        if (work.depth >= maxSubtaskDepth) {
            throw refuse('depth_limit', `task ${parent.taskId} (${parent.toolName}) is at depth ${work.depth}, and sub-tasks may nest at most ${maxSubtaskDepth} levels below the task the client started`);
        }
        if (work.children >= maxChildrenPerTask) {
            throw refuse('children_limit', `task ${parent.taskId} (${parent.toolName}) has already started ${maxChildrenPerTask} sub-tasks, the most one task may start`);
        }
        let parsed: Record<string, unknown>;
        try {
            parsed = parseArguments(tool, args);
        } catch (err) {
            throw refuse('invalid_arguments', errorMessage(err));
        }
        // Reserved before the await, so concurrent spawns cannot overshoot the limit.
        work.children++;
        let child: TaskRecord;
        try {
            const client: ClientIdentity = { clientKey: parent.clientKey, clientName: parent.clientName, isOwner: false };
            child = await this.host.createTask(client, tool, parsed, { ttl: parent.ttl, parentTaskId: parent.taskId });
        } catch (err) {
            work.children--;
            throw refuse('rejected', errorMessage(err));
        }
        if (options.onProgress) {
            this.progressListeners.set(child.taskId, options.onProgress);
        }
        if (work.stopped) {
            // The parent ended while the child was being created: the cascade may have missed it.
            await this.host.cancelTask(child, `Cancelled because parent task ${parent.taskId} (${parent.toolName}) ended while it was starting`);
            throw work.signal.reason;
        }
        return this.handle(parent, work, child);
    }

    dispose(): void {
        this.subscription.dispose();
        this.progressListeners.clear();
    }

    private handle(parent: TaskRecord, work: ParentWork, child: TaskRecord): ChildTask {
        // Created on the first wait() only: an eager promise nobody awaits would be an unhandled rejection.
        let settled: Promise<CallToolResult> | undefined;
        return {
            taskId: child.taskId,
            toolName: child.toolName,
            wait: () => (settled ??= this.settle(parent, work, child)),
            cancel: async reason => {
                const now = await this.host.store.get(child.taskId);
                if (now && !isTerminal(now.status)) {
                    await this.host.cancelTask(now, `Cancelled by parent task ${parent.taskId} (${parent.toolName})${reason ? `: ${reason}` : ''}`);
                }
            },
        };
    }

    private async settle(parent: TaskRecord, work: ParentWork, child: TaskRecord): Promise<CallToolResult> {
        const signal = work.signal;
        let ended: { task: TaskRecord; outcome: TaskOutcome };
        try {
            const client: ClientIdentity = { clientKey: parent.clientKey, isOwner: false };
            ended = await this.host.result(client, child.taskId, signal);
        } catch (err) {
            if (signal.aborted) {
                throw signal.reason;
            }
            throw new ChildTaskError(child.taskId, child.toolName, 'failed', `its task is gone (${errorMessage(err)})`);
        }
        const { task, outcome } = ended;
        if (task.status === 'completed' && 'result' in outcome) {
            return outcome.result;
        }
        if (task.status === 'cancelled' && outcome.cascadeFrom === parent.taskId) {
            // The parent itself is being cancelled, perhaps by another process: stop, do not fail.
            const reason = new Error(`Task cancelled: ${task.statusMessage ?? 'its sub-tasks were cancelled'}`);
            this.host.stopLocal(parent.taskId, reason);
            throw reason;
        }
        const status = task.status === 'cancelled' ? 'cancelled' : 'failed';
        const message = task.statusMessage ?? ('error' in outcome ? outcome.error.message : `it ended ${task.status}`);
        throw new ChildTaskError(child.taskId, child.toolName, status, message, 'result' in outcome ? outcome.result : undefined);
    }

    private onEvent(event: TaskEvent): void {
        if (event.type === 'progress') {
            const listener = this.progressListeners.get(event.taskId);
            try {
                listener?.(event.update);
            } catch {
                // A parent's progress hook must not break event delivery to everyone else.
            }
        } else if (event.type === 'deleted' || (event.type === 'status' && isTerminal(event.task.status))) {
            this.progressListeners.delete(event.type === 'deleted' ? event.taskId : event.task.taskId);
        }
    }
}
