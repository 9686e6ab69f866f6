import type { ChildProcess } from 'node:child_process';
import type { CallToolResult, ToolContext } from '../tools/types.js';
import type { OutputCapture } from './capture.js';
import type { JobFacts, JobFiles } from './jobFile.js';
import { INLINE_LOG_KEEP_MS, type LogEntry } from './logs.js';
import type { CommandOutput } from './output.js';
import type { ProgressThrottle } from './progress.js';
import { commandResult, type RunEnd } from './result.js';
import type { RunDeps } from './run.js';
import type { CommandSpec } from './spec.js';
import { survivorNote, type GroupStopper, type StopReport } from './stopper.js';

export type RunExit = { code: number | null; signal: NodeJS.Signals | null };

/** A run's leader as the supervisor follows it: spawned here, or re-adopted from a server that is gone. */
export interface Leader {
    /** The leader's pid (its group's id); undefined when spawn gave none. */
    pid?: number;
    /** Why the program could not start, or undefined once it has. */
    startError: Promise<NodeJS.ErrnoException | undefined>;
    exited: Promise<RunExit>;
    /** The stopper's `since`. */
    since: number;
    /** Spawned here: the child, for letting it go. */
    child?: ChildProcess;
}

/** A run that may outlive the server: its job file, removed once its end is recorded. */
export interface KeptJob {
    facts: JobFacts;
    files: JobFiles;
    /** Lets the processes go on without this server (closes the lifeline, stops waiting on them). */
    letGo(): void;
}

export interface Supervised {
    spec: CommandSpec;
    argv: string[];
    ctx: ToolContext;
    deps: RunDeps;
    logEntry: LogEntry;
    output: CommandOutput;
    capture: OutputCapture;
    leader: Leader;
    /** RUN_MARKER's value for this run. */
    marker: string;
    /** When the run started (the clock's ms): its duration and the rest of its timeout count from there. */
    started: number;
    throttle: ProgressThrottle;
    stopper: GroupStopper;
    /** Set here: how a failed log write stops the run. */
    stopping: { run?: () => Promise<StopReport> };
    /** Why the log could not be written, if it could not. */
    onLogError(): NodeJS.ErrnoException | undefined;
    job?: KeptJob;
    /** A line for the end of the log once all the output is in (a re-adopted run's end no exit status tells). */
    closingNote?(): string | undefined;
}

/**
 * Follows a started run to its end: the timeout, the stop on cancel (SIGTERM then SIGKILL to the
 * whole group and to the descendants that left it), what is left once the leader exits, and the
 * result. Returns (and, as a task, lets the end be recorded) once nothing of the run is left, or
 * once its stop gave up and named what is. A kept run (`job`) is let go instead when the server
 * shuts down: its task stays running for the next server (adopt.ts).
 */
export async function supervise(run: Supervised): Promise<CallToolResult> {
    const { spec, argv, ctx, deps, logEntry, output, capture, leader, marker, started, throttle, stopper, job } = run;
    const { startError, exited, since } = leader;
    let stopDone: Promise<StopReport> | undefined;
    let timedOut = false;
    const stopRun = (): Promise<StopReport> =>
        (stopDone ??= leader.pid === undefined ? Promise.resolve({ survivors: [] }) : stopper.stop({ pgid: leader.pid, marker, leaderExited: exited, since, graceMs: spec.killGraceMs }));
    run.stopping.run = stopRun;
    // What is left of the timeout (all of it, unless the run was re-adopted).
    const timeoutLeft = spec.timeoutMs === undefined ? undefined : Math.max(0, spec.timeoutMs - (deps.clock.now() - started));
    const timer = timeoutLeft === undefined ? undefined : deps.clock.setTimeout(() => ((timedOut = true), void stopRun()), timeoutLeft, undefined);
    const onAbort = (): void => void stopRun();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    // A cancel that came while the run's files were being opened (an adopted run's, as a new server
    // starts) fired before this listener: an aborted signal fires no more events.
    if (ctx.signal.aborted) {
        onAbort();
    }

    let letGo: (() => void) | undefined;
    const detached = new Promise<undefined>(resolve => (letGo = () => resolve(undefined)));
    if (job) {
        ctx.outliveServer?.(async () => {
            letGo?.();
            deps.clock.clearTimeout(timer);
            ctx.signal.removeEventListener('abort', onAbort);
            job.letGo();
            logEntry.letGo = true;
            // What was read is in the log; the next server reads the capture again from its start.
            await capture.detach();
            await output.end();
            await throttle.dispose();
        });
    }

    const finished: Promise<RunEnd | undefined> = (async () => {
        const failure = await startError;
        if (failure) {
            await capture.finish();
            await output.end();
            return { failure };
        }
        const exit = await Promise.race([exited, detached]);
        if (exit === undefined) {
            return undefined;
        }
        // The leader is gone; anything it left, in its group or not, goes too, so nothing outlives the task.
        const { survivors, unconfirmed } = await stopRun();
        // Everything written up to now, to the last byte; a descendant no scan found (it cleared its environment) cannot hold the run.
        await capture.finish();
        const logError = run.onLogError() ?? capture.readError;
        const note = run.closingNote?.();
        if (note !== undefined) {
            output.write('mcp-tasks', Buffer.from(`${note}\n`));
        }
        if (survivors.length > 0) {
            output.write('mcp-tasks', Buffer.from(`${survivorNote(survivors)}\n`));
        }
        await output.end();
        return { exit, survivors, unconfirmed, logError };
    })();
    // A stopped task's end waits for this too, so its result carries the output digest and the log.
    const described = finished.then(async end => {
        if (end === undefined) {
            // Let go as the server shut down: the next server records the end.
            return new Promise<never>(() => undefined);
        }
        deps.clock.clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
        // Before the result, so a client sees the final line as progress first (still within the rate).
        await throttle.dispose();
        const stopped = ctx.signal.aborted;
        const facts = { spec, argv, end, timedOut, stopped, durationMs: deps.clock.now() - started, logPath: logEntry.path, taskId: ctx.taskId, readOutput: deps.readOutput, tail: () => output.text(), gap: logEntry.gap };
        const described = await commandResult(facts);
        deps.logs.ended(logEntry, ctx.ttl ?? INLINE_LOG_KEEP_MS);
        job?.files.remove(job.facts);
        // Read again: a stop that came while the digest was made (the command had ended) still gets it.
        if (ctx.signal.aborted) {
            ctx.annotateStop?.(described.result);
            // The sidebar shows a stopped task's statusMessage: it must not read as a clean stop.
            if (end.unconfirmed !== undefined) {
                ctx.conclude?.(`Stopped, but ${end.unconfirmed}`);
            }
        }
        return described;
    });
    ctx.holdEnd?.(described);
    const { result, conclusion } = await described;
    if (ctx.signal.aborted) {
        throw ctx.signal.reason;
    }
    if (conclusion !== undefined) {
        ctx.conclude?.(conclusion);
    }
    return result;
}
