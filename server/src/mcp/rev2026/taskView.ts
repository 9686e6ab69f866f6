import type { TaskRuntime } from '../../tasks/runtime.js';
import type { CallToolResult } from '../../tools/types.js';
import { JsonText, withJsonTail } from '../../rpc/jsonText.js';
import { isTerminal, type TaskOutcome, type TaskRecord } from '../../tasks/types.js';
import { withTaskTail, type KeyArguments } from '../../tasks/wire.js';

/** What a task answers as: a result of its own (`tasks/get`: complete, a call made a task: task), or a notification's part (none). */
type ResultType = 'complete' | 'task' | undefined;

/**
 * A task as the tasks extension (SEP-2663) shows it: `ttlMs`/`pollIntervalMs`, and the store's
 * `failed` split in two: a tool that returned `isError` is `completed` with that result (the
 * store keeps v1's `failed`, which the 2025-11-25 view and the owner's sidebar show), and only a
 * JSON-RPC error is `failed`. With a `resultType` it leads the object, built in one literal rather
 * than spread into another (a copy per request on the tasks/get path).
 */
export function taskFields(record: TaskRecord, owner?: KeyArguments, outcome?: TaskOutcome, resultType?: ResultType): Record<string, unknown> {
    const status = record.status === 'failed' && outcome && !('error' in outcome) ? 'completed' : record.status;
    const task: Record<string, unknown> =
        resultType === undefined
            ? { taskId: record.taskId, status, createdAt: record.createdAt, lastUpdatedAt: record.lastUpdatedAt, ttlMs: record.ttl, pollIntervalMs: record.pollInterval }
            : { resultType, taskId: record.taskId, status, createdAt: record.createdAt, lastUpdatedAt: record.lastUpdatedAt, ttlMs: record.ttl, pollIntervalMs: record.pollInterval };
    return withTaskTail(task, record, owner);
}

/** The CreateTaskResult of a call the server turned into a task. */
export function createTaskResult(record: TaskRecord, owner?: KeyArguments): Record<string, unknown> {
    return taskFields(record, owner, undefined, 'task');
}

/**
 * The inline form of each outcome's result, made (and serialised) once per outcome object: the
 * memory store hands out the same parsed outcome while it stays in its cache, so the answers to a
 * polled task share one, and its JSON text goes into each stdio frame as it is (withJsonTail).
 * Weak: it goes when the store's cache drops the outcome.
 */
const inlineResults = new WeakMap<object, JsonText>();

function inlineResult(outcome: { result: CallToolResult }): JsonText {
    let result = inlineResults.get(outcome);
    if (result === undefined) {
        result = new JsonText({ resultType: 'complete', ...outcome.result });
        inlineResults.set(outcome, result);
    }
    return result;
}

/**
 * The DetailedTask `tasks/get` (as a `complete` result) and `notifications/tasks` (with no
 * `resultType`) carry: the outcome inline, or the open input requests.
 */
export async function detailedTask(runtime: TaskRuntime, record: TaskRecord, owner?: KeyArguments, resultType?: ResultType): Promise<Record<string, unknown>> {
    if (isTerminal(record.status)) {
        const outcome = record.status === 'cancelled' ? undefined : await runtime.store.getOutcome(record.taskId);
        const task = taskFields(record, owner, outcome, resultType);
        if (outcome && 'error' in outcome) {
            task.error = outcome.error;
        } else if (outcome) {
            withJsonTail(task, 'result', inlineResult(outcome));
        } else if (record.status !== 'cancelled') {
            task.status = 'failed';
            task.error = { code: -32603, message: `Task ${record.taskId} ended (${record.status}) without a stored result` };
        }
        return task;
    }
    const task = taskFields(record, owner, undefined, resultType);
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
