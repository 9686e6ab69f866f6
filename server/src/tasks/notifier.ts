import type { ClientHub } from './hub.js';
import type { TaskEvent, TaskRecord } from './types.js';
import { Methods } from '../contract.js';
import { relatedTaskMeta, toWireTask, type OwnerFacts } from './wire.js';

export const OWNER_PROGRESS_METHOD = Methods.ownerProgress;
export const TASK_STATUS_METHOD = Methods.taskStatus;

/**
 * A status change goes to the task's client (not for its creation: the client has the
 * CreateTaskResult) and to every owner, whose wire form carries the extra task info.
 */
export function notifyStatus(hub: ClientHub, tools: OwnerFacts, task: TaskRecord, created: boolean): void {
    if (!created) {
        let wire: Record<string, unknown> | undefined;
        for (const link of hub.linksFor(task.clientKey)) {
            if (!link.identity.isOwner) {
                wire ??= toWireTask(task);
                link.notify(TASK_STATUS_METHOD, wire, task.taskId);
            }
        }
    }
    notifyOwners(hub, tools, task);
}

/** A change only the owner's view shows (its client stopped waiting, or came back): the task as it is, to every owner. */
export function notifyOwners(hub: ClientHub, tools: OwnerFacts, task: TaskRecord): void {
    let ownerWire: Record<string, unknown> | undefined;
    for (const owner of hub.owners()) {
        ownerWire ??= toWireTask(task, tools);
        owner.notify(TASK_STATUS_METHOD, ownerWire, task.taskId);
    }
}

/** Progress goes to the client that gave a progress token, and to every owner in their own method. */
export function notifyProgress(hub: ClientHub, event: Extract<TaskEvent, { type: 'progress' }>): void {
    const { update, progressToken } = event;
    if (progressToken !== undefined) {
        const params = { progressToken, ...update, _meta: relatedTaskMeta(event.taskId) };
        for (const link of hub.linksFor(event.clientKey)) {
            if (!link.identity.isOwner) {
                link.notify(Methods.progress, params, event.taskId);
            }
        }
    }
    for (const owner of hub.owners()) {
        owner.notify(OWNER_PROGRESS_METHOD, { taskId: event.taskId, ...update });
    }
}
