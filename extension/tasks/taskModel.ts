import { compareSteps, compareTasks, fromWire, isTerminal, type TaskProgress, type TaskView } from './taskView';

export interface ModelChange {
    /** Tasks whose fields changed (same objects as before: identity is stable per task id). */
    changed: TaskView[];
    /** True when tasks appeared, vanished or moved between groups: the order must be recomputed. */
    structural: boolean;
}

type Listener = (change: ModelChange) => void;

/**
 * How long after a row changes state its inline buttons are not trusted: the button under the pointer
 * may have just replaced the one the user aimed at (a second click on Cancel landing on what came next).
 */
export const INLINE_SETTLE_MS = 1000;

/**
 * Every task the owner connection knows of. Updates are pushed in (status notifications,
 * progress, a slow reconciliation list) and announced as fine-grained changes.
 */
export class TaskModel {
    private readonly tasks = new Map<string, TaskView>();
    private readonly childrenOf = new Map<string, Set<string>>();
    private readonly listeners = new Set<Listener>();
    /** When each task last changed state (appeared, moved status, was lost), by this clock. */
    private readonly stateChangedAt = new Map<string, number>();
    /**
     * Finished tasks the user cleared that the server may still list (it keeps them for their TTL):
     * a finished task never changes again, so a later listing or notification must not bring its
     * row back. An id is dropped once the server no longer lists it.
     */
    private readonly cleared = new Set<string>();

    constructor(private readonly now: () => number = Date.now) {}

    get size(): number {
        return this.tasks.size;
    }

    onDidChange(listener: Listener): { dispose(): void } {
        this.listeners.add(listener);
        return { dispose: () => this.listeners.delete(listener) };
    }

    get(taskId: string): TaskView | undefined {
        return this.tasks.get(taskId);
    }

    all(): TaskView[] {
        return [...this.tasks.values()];
    }

    /** Top level: tasks without a parent, or whose parent we do not know. */
    roots(): TaskView[] {
        return this.all()
            .filter(view => !view.parentTaskId || !this.tasks.has(view.parentTaskId))
            .sort(compareTasks);
    }

    children(parentTaskId: string): TaskView[] {
        const ids = this.childrenOf.get(parentTaskId);
        if (!ids) {
            return [];
        }
        return [...ids]
            .map(id => this.tasks.get(id))
            .filter((view): view is TaskView => view !== undefined)
            .sort(compareSteps);
    }

    hasChildren(taskId: string): boolean {
        return (this.childrenOf.get(taskId)?.size ?? 0) > 0;
    }

    /** True while `taskId` changed state less than INLINE_SETTLE_MS ago: a click on its row may have been meant for the row before. */
    justChanged(taskId: string): boolean {
        const at = this.stateChangedAt.get(taskId);
        return at !== undefined && this.now() - at < INLINE_SETTLE_MS;
    }

    running(): TaskView[] {
        return this.all().filter(view => !view.lost && !isTerminal(view.status));
    }

    /** Applies a Task from the server; returns the (stable) view. */
    applyWire(wire: Record<string, unknown>): TaskView | undefined {
        const incoming = fromWire(wire);
        if (!incoming || this.cleared.has(incoming.taskId)) {
            return undefined;
        }
        const change = this.merge(incoming);
        this.emit({ changed: [change.view], structural: change.structural });
        return change.view;
    }

    /**
     * A creation's answer: it adds the task, but never over what a status notification already said of
     * it. Notifications come on their own stream, so one sent after the answer (input_required, as a
     * tool asks at once) can arrive before it, and the answer, older, would put the row back to working.
     */
    applyCreated(wire: Record<string, unknown>): TaskView | undefined {
        const known = typeof wire.taskId === 'string' ? this.tasks.get(wire.taskId) : undefined;
        return known ?? this.applyWire(wire);
    }

    applyProgress(taskId: string, progress: TaskProgress): void {
        const view = this.tasks.get(taskId);
        if (view && !isTerminal(view.status)) {
            view.progress = progress;
            this.emit({ changed: [view], structural: false });
        }
    }

    /** A full listing from the server: adds what we missed and drops what the server no longer has. */
    reconcile(list: Record<string, unknown>[]): void {
        const seen = new Set<string>();
        const changed: TaskView[] = [];
        let structural = false;
        for (const wire of list) {
            const incoming = fromWire(wire);
            if (!incoming) {
                continue;
            }
            seen.add(incoming.taskId);
            if (this.cleared.has(incoming.taskId)) {
                continue;
            }
            const before = this.tasks.get(incoming.taskId);
            if (before && before.lastUpdatedAt === incoming.lastUpdatedAt && before.status === incoming.status && !before.lost) {
                continue;
            }
            const change = this.merge(incoming);
            changed.push(change.view);
            structural ||= change.structural;
        }
        for (const taskId of this.cleared) {
            if (!seen.has(taskId)) {
                this.cleared.delete(taskId);
            }
        }
        for (const view of this.all()) {
            if (seen.has(view.taskId) || view.lost) {
                continue;
            }
            if (isTerminal(view.status)) {
                // Its result was kept for its time, and seen: the row goes with it.
                this.remove(view.taskId);
            } else {
                // Dropped unfinished: its time ran out (a question nobody answered). The row stays, saying so, until cleared.
                view.lost = true;
                view.expired = true;
                view.endedAt = new Date(this.now()).toISOString();
                view.progress = undefined;
                this.stateChangedAt.set(view.taskId, this.now());
                changed.push(view);
            }
            structural = true;
        }
        if (changed.length > 0 || structural) {
            this.emit({ changed, structural });
        }
    }

    /** The tasks (not sub-task steps) that were unfinished when the last server went away: what the crash notice names. */
    lostAtLastStop: readonly TaskView[] = [];

    /**
     * The server we watched is gone (a crash, a restart, a transport switch): unfinished tasks will
     * never finish, and finished ones are history whose results went with it. Both stay listed,
     * marked, until cleared; a new server that still has one (a shared store) revives it.
     */
    markLost(): void {
        const changed = this.all().filter(view => !view.lost);
        this.lostAtLastStop = changed.filter(view => !isTerminal(view.status) && !view.parentTaskId);
        for (const view of changed) {
            view.lost = true;
            if (!isTerminal(view.status)) {
                view.endedAt = new Date(this.now()).toISOString();
            }
            this.stateChangedAt.set(view.taskId, this.now());
        }
        if (changed.length > 0) {
            this.emit({ changed, structural: true });
        }
    }

    /**
     * Lists finished tasks of an earlier window whose results were kept, as tasks of a previous
     * server: Show Result opens the kept copy. A task already listed is left as it is.
     */
    restoreKept(views: readonly TaskView[]): void {
        const added = views.filter(view => isTerminal(view.status) && !this.tasks.has(view.taskId));
        for (const view of added) {
            this.merge({ ...view, lost: true });
        }
        if (added.length > 0) {
            this.emit({ changed: [], structural: true });
        }
    }

    /** Forgets finished (and lost) tasks, keeping running ones and the parents of running children; returns the ids it forgot. */
    clearFinished(): string[] {
        const removed: string[] = [];
        for (const view of this.all()) {
            if ((view.lost || isTerminal(view.status)) && !this.hasLiveDescendant(view.taskId)) {
                this.remove(view.taskId);
                removed.push(view.taskId);
                if (isTerminal(view.status)) {
                    this.cleared.add(view.taskId);
                }
            }
        }
        if (removed.length > 0) {
            this.emit({ changed: [], structural: true });
        }
        return removed;
    }

    remove(taskId: string): void {
        const view = this.tasks.get(taskId);
        if (!view) {
            return;
        }
        this.tasks.delete(taskId);
        this.stateChangedAt.delete(taskId);
        if (view.parentTaskId) {
            this.childrenOf.get(view.parentTaskId)?.delete(taskId);
        }
    }

    private hasLiveDescendant(taskId: string): boolean {
        for (const child of this.childrenOf.get(taskId) ?? []) {
            const view = this.tasks.get(child);
            if (view && ((!view.lost && !isTerminal(view.status)) || this.hasLiveDescendant(child))) {
                return true;
            }
        }
        return false;
    }

    private merge(incoming: TaskView): { view: TaskView; structural: boolean } {
        const existing = this.tasks.get(incoming.taskId);
        if (!existing) {
            this.tasks.set(incoming.taskId, incoming);
            this.stateChangedAt.set(incoming.taskId, this.now());
            if (incoming.parentTaskId) {
                let set = this.childrenOf.get(incoming.parentTaskId);
                if (!set) {
                    set = new Set();
                    this.childrenOf.set(incoming.parentTaskId, set);
                }
                set.add(incoming.taskId);
            }
            return { view: incoming, structural: true };
        }
        // Never let a late or reordered update undo a terminal state.
        if (isTerminal(existing.status) && !isTerminal(incoming.status)) {
            return { view: existing, structural: false };
        }
        const movedGroup = existing.status !== incoming.status || existing.lost === true;
        if (movedGroup) {
            this.stateChangedAt.set(existing.taskId, this.now());
        }
        existing.status = incoming.status;
        existing.statusMessage = incoming.statusMessage;
        existing.lastUpdatedAt = incoming.lastUpdatedAt;
        existing.ttl = incoming.ttl;
        existing.lost = false;
        existing.stoppedWaitingAt = incoming.stoppedWaitingAt;
        if (incoming.toolName !== 'task') {
            existing.toolName = incoming.toolName;
            existing.args = incoming.args;
            existing.keyArgument = incoming.keyArgument;
            existing.clientName = incoming.clientName;
            existing.background = incoming.background;
            existing.chat = incoming.chat;
        }
        if (isTerminal(existing.status)) {
            existing.progress = undefined;
        }
        return { view: existing, structural: movedGroup };
    }

    private emit(change: ModelChange): void {
        for (const listener of this.listeners) {
            listener(change);
        }
    }
}
