import { errorMessage, type Logger } from '../log.js';
import { textResult } from '../tools/types.js';
import { isTerminal, type TaskOutcome, type TaskRecord, type TaskStore } from './types.js';

/** What the cascade needs from the runtime. */
export interface CascadeHost {
    readonly store: TaskStore;
    readonly log: Logger;
    /** Cancels one task (its own cascade included); `cascadeFrom` names the parent being cancelled. */
    cancelTask(record: TaskRecord, message: string, cascadeFrom?: string): Promise<TaskRecord | undefined>;
    /** Records a terminal state through the runtime (its own cascade included). */
    finishTask(taskId: string, status: 'cancelled', outcome: TaskOutcome, statusMessage: string): Promise<unknown>;
    /** Ids of the sub-tasks of `parentTaskId` that run in this process. */
    childrenHere(parentTaskId: string): string[];
}

export const CHILDREN_PAGE_SIZE = 100;

/**
 * Cancels the live children of `parent`, found through the store wherever they run, one subtree
 * at a time (each child's cancel cascades to its own children first).
 */
export async function cancelChildren(host: CascadeHost, parent: TaskRecord, how: string): Promise<void> {
    const message = `Cancelled because parent task ${parent.taskId} (${parent.toolName}) ${how}`;
    let cursor: string | undefined;
    do {
        const page = await host.store.list({ clientKey: parent.clientKey, parentTaskId: parent.taskId, cursor, limit: CHILDREN_PAGE_SIZE });
        for (const child of page.tasks) {
            if (!isTerminal(child.status)) {
                await host.cancelTask(child, message, parent.taskId);
            }
        }
        cursor = page.nextCursor;
    } while (cursor);
}

/** A safety net for a parent that ended some other way (another process, expiry): its children here stop too. */
export function cancelOrphans(host: CascadeHost, parentTaskId: string, why: string): void {
    for (const taskId of host.childrenHere(parentTaskId)) {
        const message = `Cancelled because parent task ${parentTaskId} ${why}`;
        void host.finishTask(taskId, 'cancelled', { result: textResult(`Task cancelled: ${message}`, true) }, message).catch(err => host.log.warn(`[subtasks] cancelling orphan ${taskId} failed: ${errorMessage(err)}`));
    }
}
