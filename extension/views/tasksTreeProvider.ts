import * as vscode from 'vscode';
import { Disposable } from '../lifecycle';
import type { TaskModel } from '../tasks/taskModel';
import type { TaskView } from '../tasks/taskView';
import { toTreeItem } from './taskTreeItem';
import { isTrustNotice, trustNoticeItem, type TrustNotice } from './trustNotice';
import { onDidChangeMotion } from './motion';

/** A row of the Tasks view: a task, or the Restricted Mode notice above them. */
export type TasksRow = TaskView | TrustNotice;

const STRUCTURE_DEBOUNCE_MS = 15;
const TICK_MS = 1000;

/**
 * The Tasks view. A status or progress change refreshes only that item, and only when what the
 * row shows changed: a redraw closes the tooltip under the mouse. Tasks appearing, vanishing or
 * changing group re-sort the roots once per short burst, never per notification.
 */
export class TasksTreeProvider extends Disposable implements vscode.TreeDataProvider<TasksRow> {
    private readonly changed = this.register(new vscode.EventEmitter<TaskView | TaskView[] | undefined>());
    readonly onDidChangeTreeData = this.changed.event;
    private structureTimer?: NodeJS.Timeout;
    private readonly tick: NodeJS.Timeout;
    private pending = new Set<TaskView>();
    private itemTimer?: NodeJS.Timeout;
    /** What each row showed when last drawn, to skip redraws that would change nothing. */
    private readonly drawn = new Map<string, string>();
    private readonly ticked = this.register(new vscode.EventEmitter<TaskView[]>());
    /** After each once-a-second check: the rows it redrew (often none). */
    readonly onDidTick = this.ticked.event;
    private readonly listed = this.register(new vscode.EventEmitter<number>());
    /** VS Code was handed the view's top rows: how many tasks among them. */
    readonly onDidListTasks = this.listed.event;

    /**
     * `hasOutput`: whether a task runs a command whose output Show Output can show (its row offers it).
     * `waitingForTrust`: how many workspace commands Restricted Mode holds back (a row above the tasks says so).
     */
    constructor(
        private readonly model: TaskModel,
        private readonly hasOutput: (view: TaskView) => boolean = () => false,
        private readonly waitingForTrust: () => number = () => 0,
    ) {
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
        // Running rows spin, or stand still once the user reduces motion: all redrawn when that changes.
        this.register(onDidChangeMotion(() => this.refresh()));
        // Elapsed time moves for running tasks only; redraw those whose words changed.
        this.tick = setInterval(() => {
            const redrawn = this.changedRows(model.running());
            if (redrawn.length > 0) {
                this.changed.fire(redrawn);
            }
            this.ticked.fire(redrawn);
        }, TICK_MS);
        this.register({ dispose: () => clearInterval(this.tick) });
        this.register({
            dispose: () => {
                clearTimeout(this.structureTimer);
                clearTimeout(this.itemTimer);
            },
        });
    }

    getTreeItem(row: TasksRow): vscode.TreeItem {
        if (isTrustNotice(row)) {
            return trustNoticeItem(row);
        }
        const view = row;
        const item = this.item(view);
        this.drawn.set(view.taskId, rowText(item));
        return item;
    }

    getChildren(): TasksRow[];
    getChildren(row: TaskView): TaskView[];
    getChildren(row?: TasksRow): TasksRow[];
    getChildren(row?: TasksRow): TasksRow[] {
        if (row) {
            return isTrustNotice(row) ? [] : this.model.children(row.taskId);
        }
        const waiting = this.waitingForTrust();
        const notice: TasksRow[] = waiting > 0 ? [{ kind: 'trustNotice', count: waiting }] : [];
        const roots = this.model.roots();
        this.listed.fire(roots.length);
        return [...notice, ...roots];
    }

    getParent(row: TasksRow): TaskView | undefined {
        return !isTrustNotice(row) && row.parentTaskId ? this.model.get(row.parentTaskId) : undefined;
    }

    refresh(): void {
        this.changed.fire(undefined);
    }

    /** The views whose row would now read differently from when it was last drawn. */
    private changedRows(views: readonly TaskView[]): TaskView[] {
        return views.filter(view => this.drawn.get(view.taskId) !== rowText(this.item(view)));
    }

    private item(view: TaskView): vscode.TreeItem {
        const nested = view.parentTaskId !== undefined && this.model.get(view.parentTaskId) !== undefined;
        return toTreeItem(view, this.model.hasChildren(view.taskId), Date.now(), nested, this.hasOutput(view));
    }

    private scheduleStructure(): void {
        this.structureTimer ??= setTimeout(() => {
            this.structureTimer = undefined;
            this.pending.clear();
            this.drawn.clear();
            this.changed.fire(undefined);
        }, STRUCTURE_DEBOUNCE_MS);
    }

    private flushItems(): void {
        this.itemTimer = undefined;
        if (this.structureTimer) {
            return;
        }
        const views = this.changedRows([...this.pending].filter(view => this.model.get(view.taskId) === view));
        this.pending.clear();
        if (views.length > 0) {
            this.changed.fire(views);
        }
    }
}

/** Everything a row shows, tooltip included: equal text means a redraw would change nothing. */
function rowText(item: vscode.TreeItem): string {
    const tooltip = typeof item.tooltip === 'string' ? item.tooltip : item.tooltip?.value;
    const icon = item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : '';
    return JSON.stringify([item.label, item.description, item.contextValue, icon, tooltip, item.collapsibleState]);
}
