import { join } from 'node:path';
import { currentPlatform } from '../platform/index.js';
import type { TaskRecord } from '../tasks/types.js';
import { textResult, type CallToolResult, type ToolDefinition } from '../tools/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/log.js';
import { stopKeptGroup } from './adopt.js';
import { JobFiles, type JobFacts } from './jobFile.js';
import type { JobKeeping } from './run.js';
import { runNotFollowed } from './logFile.js';

/** The folder of a data folder's job files. */
export const JOBS_DIR = 'jobs';

/**
 * Whether this server's command tasks can outlive it (keeper.ts): a durable store's data folder
 * to record them in, a commands file to run them, an OS that can keep them, a window that is not off.
 */
export function jobKeeping(options: { dataDir: string; windowMs: number; worker: string; commands: boolean }): JobKeeping | undefined {
    if (options.windowMs <= 0 || !options.commands || currentPlatform.keptPlan === undefined) {
        return undefined;
    }
    return { files: new JobFiles(join(options.dataDir, JOBS_DIR)), windowSeconds: Math.max(1, Math.ceil(options.windowMs / 1000)), worker: options.worker };
}

/**
 * For the durable store's take-over: whether a running task of a server that is gone goes on here.
 * A task with a job file does when this server keeps jobs; where it does not (started without a
 * commands file, or with the window off), its job is stopped now and the task fails as any other.
 */
export function keepsRunning(keeping: JobKeeping | undefined, dataDir: string, clock: Clock, log: Logger): (record: TaskRecord) => boolean {
    const files = keeping?.files ?? new JobFiles(join(dataDir, JOBS_DIR));
    return record => {
        const job = files.read(record.taskId);
        if (!job) {
            return false;
        }
        if (keeping) {
            return true;
        }
        stopJob(job, files, clock);
        log.warn(`[commands] stopped the run of ${job.tool} (task ${job.taskId}) that a server which is gone started: this server takes no command over (no --commands file, or --commands-reattach-window off)`);
        return false;
    };
}

/**
 * Follows each command task the store took over still running (adopt.ts), or, when the commands
 * file no longer declares its command, stops it and fails the task in words.
 */
export function resumeJobs(records: readonly TaskRecord[], keeping: JobKeeping, adoption: (job: JobFacts) => NonNullable<ToolDefinition['run']> | undefined, resume: (record: TaskRecord, work: NonNullable<ToolDefinition['run']>) => void, clock: Clock, log: Logger): void {
    for (const record of records) {
        const job = keeping.files.read(record.taskId);
        const work = job && adoption(job);
        if (job && work) {
            log.info(`[commands] took over the run of ${job.tool} (task ${job.taskId}, keeper pid ${job.pid}) that server ${job.worker} started`);
            resume(record, work);
            continue;
        }
        if (job) {
            stopJob(job, keeping.files, clock);
        }
        const name = job?.tool ?? record.toolName;
        log.warn(`[commands] stopped the run of ${name} (task ${record.taskId}): the commands file no longer declares it`);
        const why = `The MCP Tasks server restarted, and its commands file no longer declares ${name}, so the run started before the restart was stopped. Call ${name} again once it is declared.`;
        resume(record, async (): Promise<CallToolResult> => (job ? runNotFollowed(why, job.argv, job.log) : textResult(why, true)));
    }
}

/** Stops a job no server will take over: TERM to its group, KILL after a grace; its files go. */
function stopJob(job: JobFacts, files: JobFiles, clock: Clock): void {
    stopKeptGroup(job, clock);
    // With its raw output (the capture); the log, secrets hidden, stays for the sweep.
    files.remove(job, job.capture);
}
