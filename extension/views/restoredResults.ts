// A result tab VS Code brings back after a window reload names its task only in its URI: before it
// can show the result, the task must be known again (the kept copy, or the server's list).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { OWN_CLIENT_NAME } from '../owner/ownerConnection';
import { endedInWords } from '../tasks/resultText';
import type { TaskModel } from '../tasks/taskModel';
import { clientKind, isTerminal, statusText, taskLabel, type TaskView } from '../tasks/taskView';

/** How long a restored tab waits for its task to be listed before it says it waits (it fills in later). */
const LISTED_WITHIN_MS = 20_000;

/** What a result tab shows: the task's label, its status in words and how it ended, and the result. */
export interface ShownResult {
    title: string;
    status: string;
    result: CallToolResult;
    ended?: string;
}

/** The result of a finished task as Show Result words it; `cancelledHere` when its cancel came from this editor. */
export async function shownResult(view: TaskView, result: (taskId: string) => Promise<CallToolResult>, cancelledHere = false): Promise<ShownResult> {
    return {
        title: taskLabel(view),
        status: statusText(view.status),
        result: await result(view.taskId),
        ended: endedInWords({ status: view.status, statusMessage: view.statusMessage, clientKind: clientKind(view.clientName, OWN_CLIENT_NAME), cancelledHere }),
    };
}

export interface ResultSources {
    model: TaskModel;
    owner: { hasResult(taskId: string): boolean; result(taskId: string): Promise<CallToolResult> };
    /** Starts the server if none runs and resolves once the extension is connected to it. */
    ready(): Promise<void>;
}

/**
 * Finds a restored tab's result: the copy kept here at once; otherwise the server is started (if it
 * is not running) and its task list read. Undefined while the task is not known (yet).
 */
export class RestoredResults {
    constructor(private readonly sources: ResultSources) {}

    /** Fires when the task list changed: a tab still waiting may now find its task. */
    onDidChange(listener: () => void): { dispose(): void } {
        return this.sources.model.onDidChange(() => listener());
    }

    async find(taskId: string): Promise<ShownResult | undefined> {
        const { owner } = this.sources;
        if (!owner.hasResult(taskId)) {
            await this.sources.ready().catch(() => undefined);
        }
        const view = await this.listed(taskId);
        return view && shownResult(view, id => owner.result(id));
    }

    /** Whether the model lists the task, finished: its result can be read. */
    isListed(taskId: string): boolean {
        return this.finished(taskId) !== undefined;
    }

    private finished(taskId: string): TaskView | undefined {
        const view = this.sources.model.get(taskId);
        return view && isTerminal(view.status) ? view : undefined;
    }

    /** The finished task once the model lists it, or undefined if it does not within a while. */
    private listed(taskId: string): Promise<TaskView | undefined> {
        const { model } = this.sources;
        const finished = () => this.finished(taskId);
        const now = finished();
        if (now) {
            return Promise.resolve(now);
        }
        return new Promise(resolve => {
            const done = (view: TaskView | undefined) => {
                clearTimeout(timer);
                subscription.dispose();
                resolve(view);
            };
            const timer = setTimeout(() => done(undefined), LISTED_WITHIN_MS);
            const subscription = model.onDidChange(() => {
                const view = finished();
                if (view) {
                    done(view);
                }
            });
        });
    }
}
