import type { ServerController } from './launcher/serverController';
import type { Logger } from './logger';
import type { OwnerConnection } from './owner/ownerConnection';
import type { PendingInputs } from './tasks/pendingInputs';
import type { TaskModel } from './tasks/taskModel';
import type { ResultDocuments } from './views/resultDocuments';

/** What the editor's commands work with (commands.ts registers them; runTool.ts and waitForResult.ts serve them). */
export interface CommandDeps {
    logger: Logger;
    server: ServerController;
    owner: OwnerConnection;
    model: TaskModel;
    results: ResultDocuments;
    pendingInputs: PendingInputs;
    /** Tasks started from this editor: their completion may be announced. */
    startedHere: Set<string>;
    resetSamplingConsent(): Promise<void>;
    /** Whether a tool runs one of the user's commands (mcpTasks.commands, tasks.json): Run Tool lists those first. */
    runsCommand?(toolName: string): boolean;
    /** How many workspace commands wait for workspace trust: Run Tool says so above the tools. */
    waitingForTrust?(): number;
    /** Puts the keyboard on a task's row in the Tasks view (Run Tool from an empty view: its Welcome button is gone). */
    focusRow?(taskId: string): Thenable<void>;
    /** Where the keyboard goes after a question answered from the status bar: the task's row if the Tasks view shows, else the editor. */
    focusAfterAnswer?(taskId: string): Thenable<unknown>;
    /** Each Run Again on a row, and whether the settle guard ignored it (the integration suite waits on it instead of sleeping). */
    rowRuns?: RowRun[];
    /** Under test: each task a Cancel Task… question is asked about (the suite reads it; a test host refuses modal dialogs). */
    cancelAsks?: string[];
}

export interface RowRun {
    taskId: string;
    ignored: boolean;
}
