import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What a later server needs to re-adopt a command task whose server is gone (keeper.ts): written
 * when the run starts, in the data folder's `jobs/` (private, 0600), removed when the run's end is
 * recorded. No secret is in it: the new server hides the values its own commands file and
 * environment give, as the first did.
 */
export interface JobFacts {
    v: 1;
    taskId: string;
    /** The server that started it (its store worker id). */
    worker: string;
    /** The tool that runs it: the new server re-adopts it only if its commands file still declares one of that name. */
    tool: string;
    argv: string[];
    /** The keeper: the run's leader and process group. */
    pid: number;
    /** Its start time (startTimeOf): a later process given the same pid is not the job. */
    start: number;
    /** The stop's `since` (a time none of the run's processes started before). */
    since: number;
    /** RUN_MARKER's value in the run's environment. */
    marker: string;
    /** The file the command writes (capture.ts), the log the server renders from it, the keeper's status file. */
    capture: string;
    log: string;
    status: string;
    /** When the run started (ms since the epoch, the server's clock). */
    startedAt: number;
    /** The keeper's window (seconds after its server ended before it stops the run). */
    windowSeconds: number;
}

/**
 * The mark beside a kept run's log that keeps its folder from every server's sweep of dead
 * servers' log folders (leftovers.ts), whatever data folder that server uses: the run's capture
 * and status live there until a server records its end.
 */
export const KEPT_SUFFIX = '.kept';

function keptMark(log: string): string {
    return `${log}${KEPT_SUFFIX}`;
}

/** The jobs of one data folder. */
export class JobFiles {
    constructor(readonly dir: string) {}

    /** Records a job; false when it could not be written (the run then stops with its server, as without a durable store). */
    write(job: JobFacts): boolean {
        try {
            mkdirSync(this.dir, { recursive: true, mode: 0o700 });
            writeFileSync(keptMark(job.log), '', { mode: 0o600 });
            const path = this.pathOf(job.taskId);
            writeFileSync(`${path}.tmp`, JSON.stringify(job), { mode: 0o600 });
            renameSync(`${path}.tmp`, path);
            return true;
        } catch {
            return false;
        }
    }

    read(taskId: string): JobFacts | undefined {
        try {
            const job = JSON.parse(readFileSync(this.pathOf(taskId), 'utf8')) as JobFacts;
            return job.v === 1 && job.taskId === taskId ? job : undefined;
        } catch {
            return undefined;
        }
    }

    /** Every job recorded here, of every server sharing the folder. */
    all(): JobFacts[] {
        let names: string[];
        try {
            names = readdirSync(this.dir).filter(name => name.endsWith('.json'));
        } catch {
            return [];
        }
        return names.map(name => this.read(name.slice(0, -'.json'.length))).filter(job => job !== undefined);
    }

    /** Forgets a job whose end is recorded, with the keeper's files (and any `more` given). */
    remove(job: Pick<JobFacts, 'taskId' | 'status' | 'log'>, ...more: string[]): void {
        for (const path of [this.pathOf(job.taskId), keptMark(job.log), job.status, `${job.status}.held`, `${job.status}.abandoned`, ...more]) {
            try {
                unlinkSync(path);
            } catch {
                // Not there.
            }
        }
    }

    private pathOf(taskId: string): string {
        // Task ids are base64url: safe as a file name.
        return join(this.dir, `${taskId.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);
    }
}

/** How a keeper's job ended, from its status file: the command's exit, or why there is none. */
export type KeptEnd = { code: number | null; signal: NodeJS.Signals | null; abandoned?: boolean; unknown?: boolean };

/** Reads the end of a job whose keeper is gone. */
export function keptEnd(statusPath: string, signalName: (n: number) => NodeJS.Signals | undefined): KeptEnd {
    let text: string | undefined;
    try {
        text = readFileSync(statusPath, 'utf8').trim();
    } catch {
        // No status: stopped for want of a server, or killed with its keeper.
    }
    if (text !== undefined && /^\d+$/.test(text)) {
        const status = Number(text);
        const signal = status > 128 ? signalName(status - 128) : undefined;
        return signal ? { code: null, signal } : { code: status, signal: null };
    }
    if (existsSync(`${statusPath}.abandoned`)) {
        return { code: null, signal: 'SIGTERM', abandoned: true };
    }
    return { code: null, signal: null, unknown: true };
}
