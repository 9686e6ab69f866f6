import * as vscode from 'vscode';
import { VSCODE_TASK_JOB, type OwnerJobStart, type OwnerJobStatus } from '@mcp-tasks/server/contract';
import { Disposable } from '../lifecycle';
import type { ScopedLogger } from '../logger';

/** What the owner connection hands the server's ownerJob requests to. */
export interface OwnerJobRunner {
    readonly kinds: readonly string[];
    start(params: OwnerJobStart): Promise<{ ref: string }>;
    status(ref: string, wait: boolean, signal: AbortSignal): Promise<OwnerJobStatus>;
    cancel(ref: string): Promise<void>;
}

/** How long after a task's end its process's exit code may still arrive. */
const PROCESS_END_GRACE_MS = 1000;

/** How long a cancelled task gets to stop on Ctrl+C (its terminal then stays) before it is terminated (which closes it). */
const INTERRUPT_GRACE_MS = 3000;

/** What a terminal receives for Ctrl+C: the terminal's line discipline makes it SIGINT for the task's processes. */
const CTRL_C = '\x03';

interface Job {
    label: string;
    taskId: string;
    /** The terminal the task runs in, once looked up: it outlives the task, and Show Output brings it back. */
    terminal?: vscode.Terminal;
    execution: vscode.TaskExecution;
    started: number;
    cancelRequested: boolean;
    state: OwnerJobStatus;
    ended: Promise<void>;
    end(exitCode: number | undefined): void;
}

/**
 * Runs the tasks.json tasks the user exposed as tools, through `vscode.tasks.executeTask`: they
 * show in the terminal as usual, their problem matchers report diagnostics, and a cancel
 * terminates them. Only a label exposed right now (setting, trust) may start.
 */
export class VsCodeTaskJobs extends Disposable implements OwnerJobRunner {
    readonly kinds = [VSCODE_TASK_JOB];
    private readonly jobs = new Map<string, Job>();
    private next = 0;

    constructor(
        /** The labels exposed now (empty when the setting is off or the workspace is not trusted). */
        private readonly exposed: () => ReadonlySet<string>,
        private readonly log: ScopedLogger,
    ) {
        super();
        this.register(vscode.tasks.onDidEndTaskProcess(event => this.jobOf(event.execution)?.end(event.exitCode)));
        // A task without a process still ends here; the process's exit code, when there is one, comes first or just after.
        this.register(
            vscode.tasks.onDidEndTask(event => {
                const job = this.jobOf(event.execution);
                if (job) {
                    const timer = setTimeout(() => job.end(undefined), PROCESS_END_GRACE_MS);
                    void job.ended.then(() => clearTimeout(timer));
                }
            }),
        );
    }

    async start({ kind, key, taskId }: OwnerJobStart): Promise<{ ref: string }> {
        if (kind !== VSCODE_TASK_JOB || !this.exposed().has(key)) {
            throw new Error(`The VS Code task "${key}" is not exposed as a tool (mcpTasks.exposeVsCodeTasks, workspace trust)`);
        }
        const task = (await vscode.tasks.fetchTasks()).find(candidate => candidate.name === key && candidate.source === 'Workspace');
        if (!task) {
            throw new Error(`No task labelled "${key}" in the workspace's tasks.json`);
        }
        const ref = `vscode-task-${++this.next}`;
        const execution = await vscode.tasks.executeTask(task);
        let resolveEnded!: () => void;
        const job: Job = {
            label: key,
            taskId,
            execution,
            started: Date.now(),
            cancelRequested: false,
            state: { status: 'working' },
            ended: new Promise(resolve => (resolveEnded = resolve)),
            end: exitCode => {
                if (job.state.status !== 'working') {
                    return;
                }
                job.state = outcome(job, exitCode);
                // Looked up while its name is still this task's: a later task may reuse (and rename) it.
                this.terminalOf(job);
                this.log.info(`[vscode-task] "${key}" ${job.state.status}${exitCode === undefined ? '' : ` (exit ${exitCode})`}`);
                resolveEnded();
            },
        };
        this.jobs.set(ref, job);
        this.log.info(`[vscode-task] started "${key}" as ${ref}`);
        return { ref };
    }

    async status(ref: string, wait: boolean, signal: AbortSignal): Promise<OwnerJobStatus> {
        const job = this.require(ref);
        if (wait && job.state.status === 'working') {
            await new Promise<void>((resolve, reject) => {
                const onAbort = () => reject(signal.reason);
                signal.addEventListener('abort', onAbort, { once: true });
                void job.ended.then(() => {
                    signal.removeEventListener('abort', onAbort);
                    resolve();
                });
            });
        }
        return job.state;
    }

    /**
     * Stops the task as Ctrl+C in its terminal does, so the terminal and what the task printed stay
     * (Show Output brings them back); a task that ignores Ctrl+C is terminated after a grace period.
     */
    async cancel(ref: string): Promise<void> {
        const job = this.require(ref);
        if (job.state.status !== 'working') {
            return;
        }
        job.cancelRequested = true;
        const terminal = this.terminalOf(job);
        if (terminal && terminal.exitStatus === undefined) {
            terminal.sendText(CTRL_C, false);
            let timer: NodeJS.Timeout | undefined;
            const stopped = await Promise.race([job.ended.then(() => true), new Promise<boolean>(resolve => (timer = setTimeout(() => resolve(false), INTERRUPT_GRACE_MS)))]);
            clearTimeout(timer);
            if (stopped) {
                return;
            }
            this.log.info(`[vscode-task] "${job.label}" did not stop on Ctrl+C within ${INTERRUPT_GRACE_MS / 1000} s; terminating it`);
        }
        job.execution.terminate();
        await job.ended;
    }

    /** Whether the task `taskId` ran here and its terminal is still open (Show Output can bring it back). */
    hasTerminal(taskId: string): boolean {
        const job = this.jobOfTask(taskId);
        return job !== undefined && this.terminalOf(job) !== undefined;
    }

    /** Shows the terminal of the task `taskId` (what it printed, kept after a cancel); false when there is none. */
    showTerminal(taskId: string): boolean {
        const job = this.jobOfTask(taskId);
        const terminal = job && this.terminalOf(job);
        terminal?.show(false);
        return terminal !== undefined;
    }

    /**
     * The open terminal of `job`. VS Code names a task's terminal after the task (with its folder in a
     * multi-root workspace) and gives no other link from an execution to it; it is remembered once found.
     */
    private terminalOf(job: Job): vscode.Terminal | undefined {
        if (job.terminal && vscode.window.terminals.includes(job.terminal)) {
            return job.terminal;
        }
        if (job.terminal) {
            // Closed by the user: nothing to show any more.
            return undefined;
        }
        const named = vscode.window.terminals.filter(terminal => terminal.name === job.label || terminal.name.startsWith(`${job.label} (`));
        job.terminal = named.at(-1);
        return job.terminal;
    }

    private jobOfTask(taskId: string): Job | undefined {
        for (const job of this.jobs.values()) {
            if (job.taskId === taskId) {
                return job;
            }
        }
        return undefined;
    }

    /** The running jobs' labels and refs (tests check a cancel reached VS Code). */
    running(): { ref: string; label: string; execution: vscode.TaskExecution }[] {
        return [...this.jobs].filter(([, job]) => job.state.status === 'working').map(([ref, job]) => ({ ref, label: job.label, execution: job.execution }));
    }

    private jobOf(execution: vscode.TaskExecution): Job | undefined {
        for (const job of this.jobs.values()) {
            if (job.execution === execution) {
                return job;
            }
        }
        return undefined;
    }

    private require(ref: string): Job {
        const job = this.jobs.get(ref);
        if (!job) {
            throw new Error(`Unknown VS Code task job ${ref}`);
        }
        return job;
    }
}

function outcome(job: Job, exitCode: number | undefined): OwnerJobStatus {
    const seconds = ((Date.now() - job.started) / 1000).toFixed(1);
    if (job.cancelRequested) {
        return { status: 'cancelled', statusMessage: `VS Code task "${job.label}" stopped; its terminal keeps its output` };
    }
    const structuredContent = { label: job.label, exitCode: exitCode ?? null, durationMs: Date.now() - job.started };
    if (exitCode === 0) {
        return { status: 'completed', result: { content: [{ type: 'text', text: `VS Code task "${job.label}" exited with code 0 after ${seconds} s. Its output is in the editor's terminal; problem matchers report in the Problems view.` }], structuredContent } };
    }
    const statusMessage = exitCode === undefined ? `VS Code task "${job.label}" ended without an exit code` : `exit ${exitCode}: VS Code task "${job.label}" failed`;
    return { status: 'failed', statusMessage, result: { content: [{ type: 'text', text: `${statusMessage} after ${seconds} s. Its output is in the editor's terminal; problem matchers report in the Problems view.` }], structuredContent, isError: true } };
}
