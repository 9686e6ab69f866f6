import * as vscode from 'vscode';
import { Disposable } from '../lifecycle';
import type { TaskModel } from '../tasks/taskModel';
import type { TaskView } from '../tasks/taskView';
import { toTreeItem } from './taskTreeItem';

const STRUCTURE_DEBOUNCE_MS = 15;
const TICK_MS = 1000;

/**
 * The Tasks view. A status or progress change refreshes only that item; tasks appearing,
 * vanishing or changing group re-sort the roots once per short burst, never per notification.
 */
export class TasksTreeProvider extends Disposable implements vscode.TreeDataProvider<TaskView> {
    private readonly changed = this.register(new vscode.EventEmitter<TaskView | TaskView[] | undefined>());
    readonly onDidChangeTreeData = this.changed.event;
    private structureTimer?: NodeJS.Timeout;
    private readonly tick: NodeJS.Timeout;
    private pending = new Set<TaskView>();
    private itemTimer?: NodeJS.Timeout;

    constructor(private readonly model: TaskModel) {
        super();
        this.register(
            model.onDidChange(change => {
                if (change.structural) {
                    this.scheduleStructure();
                } else {
                    for (const view of change.changed) {
                        this.pending.add(view);
                    }
                    this.itemTimer ??= setTimeout(() => this.flushItems(), 0);
                }
            }),
        );
        // Elapsed time moves for running tasks only; refresh just those.
        this.tick = setInterval(() => {
            const running = model.running();
            if (running.length > 0) {
                this.changed.fire(running);
            }
        }, TICK_MS);
        this.register({ dispose: () => clearInterval(this.tick) });
        this.register({
            dispose: () => {
                clearTimeout(this.structureTimer);
                clearTimeout(this.itemTimer);
            },
        });
    }

    getTreeItem(view: TaskView): vscode.TreeItem {
        return toTreeItem(view, this.model.hasChildren(view.taskId));
    }

    getChildren(view?: TaskView): TaskView[] {
        return view ? this.model.children(view.taskId) : this.model.roots();
    }

    getParent(view: TaskView): TaskView | undefined {
        return view.parentTaskId ? this.model.get(view.parentTaskId) : undefined;
    }

    refresh(): void {
        this.changed.fire(undefined);
    }

    private scheduleStructure(): void {
        this.structureTimer ??= setTimeout(() => {
            this.structureTimer = undefined;
            this.pending.clear();
            this.changed.fire(undefined);
        }, STRUCTURE_DEBOUNCE_MS);
    }

    private flushItems(): void {
        this.itemTimer = undefined;
        if (this.structureTimer) {
            return;
        }
        const views = [...this.pending].filter(view => this.model.get(view.taskId) === view);
        this.pending.clear();
        if (views.length > 0) {
            this.changed.fire(views);
        }
    }
}
