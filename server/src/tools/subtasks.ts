import type { CallToolResult, ChildTask } from './types.js';

/**
 * A child task ended without a result. Its message names the child's tool, id and status
 * message, so a parent that lets it propagate fails with a statusMessage that says which child.
 */
export class ChildTaskError extends Error {
    override readonly name = 'ChildTaskError';

    constructor(
        readonly taskId: string,
        readonly toolName: string,
        readonly status: 'failed' | 'cancelled',
        readonly statusMessage: string,
        /** The child's own (isError) result, when it produced one. */
        readonly result?: CallToolResult,
    ) {
        super(`Sub-task ${toolName} ${taskId} ${status}: ${statusMessage}`);
    }
}

export type SpawnRefusal = 'not_a_task' | 'parent_not_running' | 'unknown_tool' | 'task_forbidden' | 'invalid_arguments' | 'depth_limit' | 'children_limit' | 'rejected';

/** `ctx.spawn` refused to start a child; nothing was created. A plain Error so an uncaught one fails the parent as a tool error. */
export class SpawnError extends Error {
    override readonly name = 'SpawnError';

    constructor(
        readonly reason: SpawnRefusal,
        message: string,
    ) {
        super(message);
    }
}

/**
 * Waits for every child and returns their results in order. Fails fast like Promise.all: the
 * first ChildTaskError rejects it while the other children keep running, so the caller decides
 * whether to cancel them (they are cancelled anyway when the parent ends).
 */
export function join(children: readonly ChildTask[]): Promise<CallToolResult[]> {
    return Promise.all(children.map(child => child.wait()));
}
