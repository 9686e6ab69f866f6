import { errorMessage } from '../util/log.js';
import { parseArguments } from '../tools/arguments.js';
import { ChildTaskError, SpawnError } from '../tools/subtasks.js';
import type { CallToolResult, ChildTask, SpawnOptions } from '../tools/types.js';
import type { ClientIdentity } from './hub.js';
import { cancelledOutcome } from './outcomes.js';
import { TaskRun } from './taskRun.js';
import { isTerminal, type TaskOutcome, type TaskRecord } from './types.js';

/**
 * `ctx.spawn`: checks the limits, creates the child through the runtime (an ordinary task of the
 * same client, running here as a child of `parent`), and hands back a ChildTask whose wait()
 * rests on store events.
 */
export async function spawnChild(parent: TaskRun, toolName: string, args: Record<string, unknown> = {}, options: SpawnOptions = {}): Promise<ChildTask> {
    const { host, record } = parent;
    const { maxSubtaskDepth, maxChildrenPerTask } = host.limits;
    const refuse = (reason: ConstructorParameters<typeof SpawnError>[0], why: string) => new SpawnError(reason, `Cannot start sub-task ${toolName}: ${why}`);
    if (parent.stopping) {
        throw refuse('parent_not_running', `task ${record.taskId} (${record.toolName}) is no longer running`);
    }
    const tool = host.tools.get(toolName);
    if (!tool) {
        throw refuse('unknown_tool', 'no such tool');
    }
    if (tool.taskSupport === 'forbidden') {
        throw refuse('task_forbidden', 'the tool cannot run as a task (taskSupport "forbidden")');
    }
    if (parent.depth >= maxSubtaskDepth) {
        throw refuse('depth_limit', `task ${record.taskId} (${record.toolName}) is at depth ${parent.depth}, and sub-tasks may nest at most ${maxSubtaskDepth} levels below the task the client started`);
    }
    if (parent.spawned >= maxChildrenPerTask) {
        throw refuse('children_limit', `task ${record.taskId} (${record.toolName}) has already started ${maxChildrenPerTask} sub-tasks, the most one task may start`);
    }
    let parsed: Record<string, unknown>;
    try {
        parsed = parseArguments(tool, args);
    } catch (err) {
        throw refuse('invalid_arguments', errorMessage(err));
    }
    // Reserved before the await, so concurrent spawns cannot overshoot the limit.
    parent.spawned++;
    let child: TaskRecord;
    try {
        const client: ClientIdentity = { clientKey: record.clientKey, clientName: record.clientName, isOwner: false };
        child = await host.createTask(client, tool, parsed, { ttl: record.ttl, parent, onProgress: options.onProgress });
    } catch (err) {
        parent.spawned--;
        throw refuse('rejected', errorMessage(err));
    }
    if (parent.stopping) {
        // The parent ended while the child was being created: its cascade may have missed it.
        const message = `Cancelled because parent task ${record.taskId} (${record.toolName}) ended while it was starting`;
        await host.runOf(child.taskId)?.stop('cancelled', cancelledOutcome(message), message);
        throw (parent.signal.reason as unknown) ?? refuse('parent_not_running', `task ${record.taskId} (${record.toolName}) is no longer running`);
    }
    return childHandle(parent, child);
}

function childHandle(parent: TaskRun, child: TaskRecord): ChildTask {
    // Created on the first wait() only: an eager promise nobody awaits would be an unhandled rejection.
    let settled: Promise<CallToolResult> | undefined;
    return {
        taskId: child.taskId,
        toolName: child.toolName,
        wait: () => (settled ??= waitForChild(parent, child)),
        cancel: async reason => {
            const { host, record } = parent;
            const now = await host.store.get(child.taskId);
            if (now && !isTerminal(now.status)) {
                const message = `Cancelled by parent task ${record.taskId} (${record.toolName})${reason ? `: ${reason}` : ''}`;
                await (host.runOf(now.taskId) ?? TaskRun.elsewhere(host, now)).stop('cancelled', cancelledOutcome(message), message);
            }
        },
    };
}

async function waitForChild(parent: TaskRun, child: TaskRecord): Promise<CallToolResult> {
    const signal = parent.signal;
    let ended: { task: TaskRecord; outcome: TaskOutcome };
    try {
        ended = await parent.host.result({ clientKey: parent.record.clientKey, isOwner: false }, child.taskId, signal);
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
        // The parent itself is being cancelled, perhaps by another process, which records its end
        // after its children's: it stops through the one door, and records the end itself only if
        // that never comes.
        const message = task.statusMessage ?? 'its sub-tasks were cancelled';
        parent.stopDecidedElsewhere(message);
        throw (parent.signal.reason as unknown) ?? new Error(`Task cancelled: ${message}`);
    }
    const status = task.status === 'cancelled' ? 'cancelled' : 'failed';
    const message = task.statusMessage ?? ('error' in outcome ? outcome.error.message : `it ended ${task.status}`);
    throw new ChildTaskError(child.taskId, child.toolName, status, message, 'result' in outcome ? outcome.result : undefined);
}
