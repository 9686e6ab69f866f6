import { errorMessage } from '../util/log.js';
import { textResult, type ExternalStatus, type ExternalTaskHandler } from '../tools/types.js';
import type { ClockTimer } from '../util/clock.js';
import { outcomeOfError, resultText } from './outcomes.js';
import type { TaskRun } from './taskRun.js';
import type { TaskOutcome, TaskRecord } from './types.js';

/**
 * The external job behind a task (see ExternalTaskHandler): submitted, watched when the job
 * system pushes, asked when someone looks, and let go when the task stops. Every end it learns
 * of is recorded through its run's stop().
 */
export class ExternalJob {
    private unwatch?: () => void;
    private released = false;
    /** The job system reported the job's end: there is nothing left to cancel there. */
    private ended = false;
    /** Settles with the job's reference once the job system answered start (undefined if it failed). */
    private refKnown?: Promise<string | undefined>;
    private settleRef?: (ref: string | undefined) => void;

    constructor(
        private readonly run: TaskRun,
        private readonly handler: ExternalTaskHandler,
        private ref?: string,
    ) {}

    /** Whether the job system pushes changes (otherwise waiters poll it). */
    get pushes(): boolean {
        return this.handler.watch !== undefined;
    }

    /** Submits the job and records its reference. Never rejects: a failure to start fails the task. */
    async start(args: Record<string, unknown>): Promise<void> {
        const { record, host } = this.run;
        this.refKnown = new Promise(resolve => (this.settleRef = resolve));
        try {
            const ref = await this.handler.start(args, record.taskId).catch(err => {
                this.settleRef?.(undefined);
                throw err;
            });
            this.ref = ref;
            this.settleRef?.(ref);
            record.externalRef = ref;
            await host.store.setExternalRef(record.taskId, ref);
            if (!this.released) {
                this.unwatch = this.handler.watch?.(ref, status => void this.apply(status).catch(err => host.log.warn(`[external] ${record.taskId}: ${errorMessage(err)}`)));
            }
        } catch (err) {
            await this.run.stop('failed', outcomeOfError(record.toolName, err), errorMessage(err)).catch(failure => host.log.warn(`[tasks] could not record the end of task ${record.taskId}: ${errorMessage(failure)}`));
        }
    }

    /** Asks the job system for the truth, and records an end it reports. */
    async sync(): Promise<TaskRecord | undefined> {
        if (!this.ref) {
            return undefined;
        }
        return this.apply(await this.handler.getStatus(this.ref));
    }

    /** Asks the job system every `intervalMs` until the returned undo is called (for a job that does not push). */
    poll(intervalMs: number): () => void {
        const { clock } = this.run.host;
        let timer: ClockTimer | undefined;
        let stopped = false;
        const round = () => {
            if (!stopped) {
                timer = clock.setTimeout(() => void this.sync().then(round, round), intervalMs, undefined, true);
            }
        };
        round();
        return () => {
            stopped = true;
            clock.clearTimeout(timer);
        };
    }

    /** Lets the job go as its task stops: stops watching, and cancels the job when the task is being cancelled. */
    async release(cancel: boolean): Promise<void> {
        this.released = true;
        this.unwatch?.();
        this.unwatch = undefined;
        // Cancelled while the job system is still starting it: wait for its reference, or the job would run on unwatched.
        const ref = this.ref ?? (cancel ? await this.refKnown : undefined);
        if (cancel && !this.ended && ref) {
            await this.handler.cancel(ref).catch(err => this.run.host.log.warn(`[external] cancel of ${this.run.taskId} failed: ${errorMessage(err)}`));
        }
    }

    private async apply(status: ExternalStatus): Promise<TaskRecord | undefined> {
        if (status.status === 'working') {
            return undefined;
        }
        this.ended = true;
        const { run } = this;
        try {
            const outcome: TaskOutcome = status.status === 'cancelled' ? { result: textResult(status.statusMessage ?? 'External job cancelled', true) } : { result: await this.handler.getResult(this.ref!) };
            const message = status.statusMessage ?? (status.status === 'failed' && 'result' in outcome ? resultText(outcome.result) : undefined);
            return await run.stop(status.status, outcome, message);
        } catch (err) {
            return run.stop('failed', outcomeOfError(run.record.toolName, err), errorMessage(err));
        }
    }
}
