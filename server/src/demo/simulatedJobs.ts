import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { textResult, type CallToolResult, type ExternalStatus, type ExternalTaskHandler } from '../tools/types.js';

interface Job {
    jobId: string;
    status: ExternalStatus;
    result?: CallToolResult;
    timer?: NodeJS.Timeout;
}

/**
 * An in-process stand-in for an external job queue. It knows nothing of MCP tasks: the runtime
 * reaches it only through ExternalTaskHandler, as it would a real queue.
 */
export class SimulatedJobSystem implements ExternalTaskHandler<{ job_id: string }> {
    private readonly jobs = new Map<string, Job>();
    private readonly changes = new EventEmitter();

    /**
     * @param durationMs how long a job runs
     * @param retainMs how long a finished job is kept (its task reads the result at once), like a real queue's retention
     */
    constructor(
        private readonly durationMs = 1000,
        private readonly retainMs = 60_000,
    ) {
        this.changes.setMaxListeners(0);
    }

    async start(args: { job_id: string }): Promise<string> {
        const ref = randomUUID();
        const job: Job = { jobId: args.job_id, status: { status: 'working', statusMessage: `External job ${args.job_id} queued` } };
        job.timer = setTimeout(() => this.settle(ref, { status: 'completed' }, textResult(`External job ${args.job_id} completed`)), this.durationMs);
        job.timer.unref();
        this.jobs.set(ref, job);
        return ref;
    }

    async getStatus(ref: string): Promise<ExternalStatus> {
        return this.job(ref).status;
    }

    async getResult(ref: string): Promise<CallToolResult> {
        const job = this.job(ref);
        if (!job.result) {
            throw new Error(`External job ${job.jobId} has no result yet`);
        }
        return job.result;
    }

    async cancel(ref: string): Promise<void> {
        const job = this.job(ref);
        if (job.status.status === 'working') {
            clearTimeout(job.timer);
            this.settle(ref, { status: 'cancelled', statusMessage: `External job ${job.jobId} cancelled` }, textResult(`External job ${job.jobId} cancelled`, true));
        }
    }

    watch(ref: string, onChange: (status: ExternalStatus) => void): () => void {
        const listener = (changed: string, status: ExternalStatus) => {
            if (changed === ref) {
                onChange(status);
            }
        };
        this.changes.on('change', listener);
        return () => this.changes.off('change', listener);
    }

    /** Forgets a job once its task is gone, so the stand-in does not grow without bound. */
    forget(ref: string): void {
        clearTimeout(this.jobs.get(ref)?.timer);
        this.jobs.delete(ref);
    }

    private settle(ref: string, status: ExternalStatus, result: CallToolResult): void {
        const job = this.jobs.get(ref);
        if (!job) {
            return;
        }
        job.status = status;
        job.result = result;
        // Without this every job ever run stayed in memory.
        job.timer = setTimeout(() => this.jobs.delete(ref), this.retainMs);
        job.timer.unref();
        this.changes.emit('change', ref, status);
    }

    private job(ref: string): Job {
        const job = this.jobs.get(ref);
        if (!job) {
            throw new Error(`Unknown external job reference ${ref}`);
        }
        return job;
    }
}
