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

interface Job {
    label: string;
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

    async start({ kind, key }: OwnerJobStart): Promise<{ ref: string }> {
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

    async cancel(ref: string): Promise<void> {
        const job = this.require(ref);
        if (job.state.status === 'working') {
            job.cancelRequested = true;
            job.execution.terminate();
            await job.ended;
        }
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
        return { status: 'cancelled', statusMessage: `VS Code task "${job.label}" terminated` };
    }
    const structuredContent = { label: job.label, exitCode: exitCode ?? null, durationMs: Date.now() - job.started };
    if (exitCode === 0) {
        return { status: 'completed', result: { content: [{ type: 'text', text: `VS Code task "${job.label}" exited with code 0 after ${seconds} s. Its output is in the editor's terminal; problem matchers report in the Problems view.` }], structuredContent } };
    }
    const statusMessage = exitCode === undefined ? `VS Code task "${job.label}" ended without an exit code` : `exit ${exitCode}: VS Code task "${job.label}" failed`;
    return { status: 'failed', statusMessage, result: { content: [{ type: 'text', text: `${statusMessage} after ${seconds} s. Its output is in the editor's terminal; problem matchers report in the Problems view.` }], structuredContent, isError: true } };
}
