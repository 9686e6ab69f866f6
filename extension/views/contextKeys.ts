// The one place that sets the `when`-clause context keys package.json uses, from the task model,
// the server connection and the active result tab. A key is sent to VS Code only when it changes.
import * as vscode from 'vscode';
import { Disposable } from '../lifecycle';
import type { TaskModel } from '../tasks/taskModel';
import { isTerminal } from '../tasks/taskView';

export const ContextKeys = {
    /** Some task is finished or lost: Clear Finished can act. */
    hasFinished: 'mcpTasks.hasFinished',
    /** Some task still runs: Cancel Task can act. */
    hasActive: 'mcpTasks.hasActive',
    /** Some task waits for an answer: Respond can act. */
    needsInput: 'mcpTasks.needsInput',
    /** Our connection to the server is up: Restart Server can act. */
    serverRunning: 'mcpTasks.serverRunning',
    /** The server is down and will not come back by itself (a failed start): the view says so. */
    serverProblem: 'mcpTasks.serverProblem',
    /** The active tab shows a task's result and that task has output: the result's title bar offers Show Output. */
    resultHasOutput: 'mcpTasks.resultHasOutput',
} as const;

type Values = Record<(typeof ContextKeys)[keyof typeof ContextKeys], boolean | string>;
export type SetContext = (key: string, value: boolean | string) => unknown;

export interface ContextSources {
    model: TaskModel;
    server: { readonly connected: boolean; onDidChangeState(listener: (up: boolean) => void): vscode.Disposable };
    /** The server controller's problem, if any (none: never a problem). */
    problem?: { readonly problem: string | undefined; onDidChangeProblem(listener: (problem: string | undefined) => void): vscode.Disposable };
    /** The result the active tab shows, if any (none: never one with output). */
    activeResult?: { readonly hasOutput: boolean; onDidChange(listener: () => void): vscode.Disposable };
}

const setContext: SetContext = (key, value) => vscode.commands.executeCommand('setContext', key, value);

export class ContextKeyTracker extends Disposable {
    private readonly sent = new Map<string, boolean | string>();

    constructor(
        private readonly sources: ContextSources,
        private readonly set: SetContext = setContext,
    ) {
        super();
        this.register(sources.model.onDidChange(() => this.update()));
        this.register(sources.server.onDidChangeState(() => this.update()));
        if (sources.problem) {
            this.register(sources.problem.onDidChangeProblem(() => this.update()));
        }
        if (sources.activeResult) {
            this.register(sources.activeResult.onDidChange(() => this.update()));
        }
        this.update();
    }

    /** What each key should be now. */
    values(): Values {
        const all = this.sources.model.all();
        return {
            [ContextKeys.hasFinished]: all.some(view => view.lost === true || isTerminal(view.status)),
            [ContextKeys.hasActive]: all.some(view => !view.lost && !isTerminal(view.status)),
            [ContextKeys.needsInput]: all.some(view => !view.lost && view.status === 'input_required'),
            [ContextKeys.serverRunning]: this.sources.server.connected,
            [ContextKeys.serverProblem]: this.sources.problem?.problem !== undefined,
            [ContextKeys.resultHasOutput]: this.sources.activeResult?.hasOutput ?? false,
        };
    }

    private update(): void {
        for (const [key, value] of Object.entries(this.values())) {
            if (this.sent.get(key) !== value) {
                this.sent.set(key, value);
                void this.set(key, value);
            }
        }
    }
}
