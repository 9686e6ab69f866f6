import type { TaskRuntime } from '../../tasks/runtime.js';
import { isTerminal, type TaskOutcome, type TaskRecord } from '../../tasks/types.js';
import { withTaskTail, type KeyArguments } from '../../tasks/wire.js';

/**
 * A task as the tasks extension (SEP-2663) shows it: `ttlMs`/`pollIntervalMs`, and the store's
 * `failed` split in two: a tool that returned `isError` is `completed` with that result (the
 * store keeps v1's `failed`, which the 2025-11-25 view and the owner's sidebar show), and only a
 * JSON-RPC error is `failed`.
 */
export function taskFields(record: TaskRecord, owner?: KeyArguments, outcome?: TaskOutcome): Record<string, unknown> {
    const status = record.status === 'failed' && outcome && !('error' in outcome) ? 'completed' : record.status;
    const task: Record<string, unknown> = {
        taskId: record.taskId,
        status,
        createdAt: record.createdAt,
        lastUpdatedAt: record.lastUpdatedAt,
        ttlMs: record.ttl,
        pollIntervalMs: record.pollInterval,
    };
    return withTaskTail(task, record, owner);
}

/** The CreateTaskResult of a call the server turned into a task. */
export function createTaskResult(record: TaskRecord, owner?: KeyArguments): Record<string, unknown> {
    return { resultType: 'task', ...taskFields(record, owner) };
}

/** The DetailedTask `tasks/get` and `notifications/tasks` carry: the outcome inline, or the open input requests. */
export async function detailedTask(runtime: TaskRuntime, record: TaskRecord, owner?: KeyArguments): Promise<Record<string, unknown>> {
    if (isTerminal(record.status)) {
        const outcome = record.status === 'cancelled' ? undefined : await runtime.store.getOutcome(record.taskId);
        const task = taskFields(record, owner, outcome);
        if (outcome && 'error' in outcome) {
            task.error = outcome.error;
        } else if (outcome) {
            task.result = { resultType: 'complete', ...outcome.result };
        } else if (record.status !== 'cancelled') {
            task.status = 'failed';
            task.error = { code: -32603, message: `Task ${record.taskId} ended (${record.status}) without a stored result` };
        }
        return task;
    }
    const task = taskFields(record, owner);
    // What the running process holds is current (a sub-task's requests show on its root task; an
    // answered one is gone before the store says "working" again); elsewhere, the shared store's.
    const open = await runtime.inputs.open(record.taskId, record.status === 'input_required');
    if (open.requests && Object.keys(open.requests).length > 0) {
        task.status = 'input_required';
        task.inputRequests = open.requests;
    } else if (open.here && record.status === 'input_required') {
        task.status = 'working';
    } else if (record.status === 'input_required') {
        task.inputRequests = {};
    }
    return task;
}
