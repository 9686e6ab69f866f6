import { existsSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname } from 'node:path';
import { errorMessage } from '../util/log.js';
import type { Clock, ClockTimer } from '../util/clock.js';
import type { CallToolResult, ToolContext } from '../tools/types.js';
import { runNotFollowed } from './logFile.js';
import { currentPlatform } from '../platform/index.js';
import { RUN_MARKER } from '../platform/processTable.js';
import { OutputCapture } from './capture.js';
import { keptEnd, type JobFacts, type KeptEnd } from './jobFile.js';
import { CommandOutput } from './output.js';
import { progressThrottle } from './progress.js';
import type { JobKeeping, RunDeps } from './run.js';
import { RunLog } from './runLog.js';
import { commandEnv, secretValues, serverSecretsOf } from './secrets.js';
import type { CommandSpec } from './spec.js';
import { stopperFor, type StopReport } from './stopper.js';
import { supervise, type RunExit } from './supervise.js';
import { TEST_NEEDLES } from './testOutput/testLines.js';

/** How often a re-adopted job's keeper is looked at: it is no child of this server, so no exit event comes. */
export const KEEPER_POLL_MS = 500;

/**
 * Follows a command task that a server which is gone started (keeper.ts), as that server would
 * have: its log is written again from the first byte of its capture (secrets hidden as this server
 * hides them), its progress goes on, a cancel stops its whole group, its timeout counts from its
 * start, and its end comes from the keeper's status file. This server's pid goes into the keeper's
 * `.held` file first, so the keeper's watchdog waits while this server lives.
 */
export async function adoptCommand(job: JobFacts, spec: CommandSpec, ctx: ToolContext, deps: RunDeps & { jobs: JobKeeping }): Promise<CallToolResult> {
    try {
        // Only once its files are there: a run whose folder was removed cannot tell its output or its end.
        if (!existsSync(job.capture)) {
            throw Object.assign(new Error(`${job.capture} is gone`), { code: 'ENOENT' });
        }
        writeFileSync(`${job.status}.held`, String(process.pid), { mode: 0o600 });
    } catch (err) {
        stopKeptGroup(job, deps.clock);
        deps.jobs.files.remove(job);
        return runNotFollowed(`The MCP Tasks server restarted, and the files of this run of ${spec.name} (in ${dirname(job.log)}) were removed meanwhile (${errorMessage(err)}), so it was stopped: its output and exit status cannot be known. Call ${spec.name} again to run it.`, job.argv, job.log);
    }
    const logEntry = deps.logs.adopt(job.log, spec.name, ctx.taskId!);
    const throttle = progressThrottle(spec, ctx, deps.clock);
    let logError: NodeJS.ErrnoException | undefined;
    const stopping: { run?: () => Promise<StopReport> } = {};
    const log = await RunLog.open(logEntry, deps.logs.maxBytes, err => ((logError ??= err), void stopping.run?.()));
    const capture = await OutputCapture.open(job.capture, deps.clock, true);
    const env = { ...commandEnv(deps.env, spec.env), [RUN_MARKER]: job.marker };
    const secrets = secretValues(env, spec.env, [...serverSecretsOf(deps.env), ...(deps.serverSecrets ?? [])]);
    const output = new CommandOutput(log, secrets, throttle.line, spec.progressPattern !== undefined, TEST_NEEDLES);
    capture.started({ write: chunk => output.write('out', chunk), drained: () => output.drained() });
    const keeper = watchKeeper(job, deps.clock);
    let note: string | undefined;
    const exited = keeper.ended.then((end): RunExit => {
        // A stop from here (a cancel, the timeout) killed the keeper too: the result says why, not the note.
        const stoppedHere = ctx.signal.aborted || (spec.timeoutMs !== undefined && deps.clock.now() - job.startedAt >= spec.timeoutMs);
        if (stoppedHere && end.unknown) {
            return { code: null, signal: 'SIGTERM' };
        }
        note = endNote(end, job.windowSeconds);
        return { code: end.code, signal: end.signal };
    });
    return supervise({
        spec,
        argv: job.argv,
        ctx,
        deps,
        logEntry,
        output,
        capture,
        leader: { pid: job.pid, startError: Promise.resolve(undefined), exited, since: job.since },
        marker: job.marker,
        started: job.startedAt,
        throttle,
        stopper: stopperFor(deps.clock),
        stopping,
        onLogError: () => logError,
        job: { facts: job, files: deps.jobs.files, letGo: () => keeper.stop() },
        closingNote: () => note,
    });
}

/** Between the TERM and the KILL of a kept run no server follows. */
const STOP_GRACE_MS = 5000;

/** Stops a kept run's whole group (its keeper leads it): TERM, then KILL after a grace if the keeper is still there. */
export function stopKeptGroup(job: Pick<JobFacts, 'pid' | 'start'>, clock: Clock): void {
    if (keeperRunning(job)) {
        currentPlatform.processTable.signal(-job.pid, 'SIGTERM');
        clock.setTimeout(() => keeperRunning(job) && currentPlatform.processTable.signal(-job.pid, 'SIGKILL'), STOP_GRACE_MS, undefined, true);
    }
}

/** Whether the job's keeper still runs: the same pid, started at the same time (a later process given that pid is not it). */
export function keeperRunning(job: Pick<JobFacts, 'pid' | 'start'>): boolean {
    if (!currentPlatform.processRunning(job.pid)) {
        return false;
    }
    const start = currentPlatform.processTable.startTimeOf(job.pid);
    return job.start === 0 || start === 0 || start === job.start;
}

/** Settles with the job's end once its keeper is gone, looking every KEEPER_POLL_MS. */
function watchKeeper(job: JobFacts, clock: Clock): { ended: Promise<KeptEnd>; stop(): void } {
    let timer: ClockTimer | undefined;
    let stopped = false;
    const ended = new Promise<KeptEnd>(resolve => {
        const look = (): void => {
            if (stopped) {
                return;
            }
            if (!keeperRunning(job)) {
                resolve(keptEnd(job.status, signalNamed));
                return;
            }
            timer = clock.setTimeout(look, KEEPER_POLL_MS, undefined, true);
        };
        look();
    });
    return {
        ended,
        stop: () => {
            stopped = true;
            clock.clearTimeout(timer);
        },
    };
}

function signalNamed(number: number): NodeJS.Signals | undefined {
    return (Object.entries(constants.signals) as [NodeJS.Signals, number][]).find(([, value]) => value === number)?.[0];
}

/** What the log says of an end no exit status tells. */
function endNote(end: KeptEnd, windowSeconds: number): string | undefined {
    if (end.abandoned) {
        return `[mcp-tasks] stopped: no MCP Tasks server took this run over within ${windowSeconds} s after the one that started it ended`;
    }
    if (end.unknown) {
        return '[mcp-tasks] the run ended while no MCP Tasks server followed it, and left no exit status (its keeper was killed with it)';
    }
    return undefined;
}
