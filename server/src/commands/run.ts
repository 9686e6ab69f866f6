import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Clock } from '../util/clock.js';
import type { CallToolResult, ToolContext } from '../tools/types.js';
import { buildArgv } from './argv.js';
import { OutputCapture } from './capture.js';
import { confineCwd } from './confine.js';
import { logFailure, notStarted } from './logFile.js';
import { INLINE_LOG_KEEP_MS, type CommandLogs, type LogEntry } from './logs.js';
import { CommandOutput } from './output.js';
import { RUN_MARKER } from '../platform/processTable.js';
import { progressThrottle } from './progress.js';
import { RunLog } from './runLog.js';
import { spawnPacer } from './spawnPacer.js';
import { commandResult, type RunEnd } from './result.js';
import { commandEnv, secretValues, serverSecretsOf } from './secrets.js';
import type { CommandSpec } from './spec.js';
import { currentPlatform } from '../platform/index.js';
import { stopperFor, survivorNote, type StopReport } from './stopper.js';
import { TEST_NEEDLES } from './testOutput/testLines.js';

export interface RunDeps {
    clock: Clock;
    /** Where each run's log file goes, and how long it stays. */
    logs: CommandLogs;
    /** The server's environment (commands inherit it, minus the server's own settings). */
    env: NodeJS.ProcessEnv;
    /** The server's own credentials (its tokens): hidden from output even when a command reads them elsewhere. */
    serverSecrets?: readonly string[];
    /** Whether the server offers read_output (its task tools are on): only then do results and descriptions name it. */
    readOutput?: boolean;
}

/**
 * Runs one command to its end in its own process group: output to a log file and a tail,
 * throttled progress, a timeout, and on cancel SIGTERM then SIGKILL to the whole group and to the
 * descendants that left it. Returns (and, as a task, lets the end be recorded) once nothing of the
 * run is left, or once its stop gave up and named what is.
 */
export async function runCommand(spec: CommandSpec, args: Record<string, unknown>, ctx: ToolContext, deps: RunDeps, opened?: (log: LogEntry) => void): Promise<CallToolResult> {
    const argv = buildArgv(spec, args);
    const marker = randomUUID();
    const logEntry = deps.logs.create(spec.name, ctx.taskId);
    // A plain call that goes on as a task (--defer-after): read_output reads this log by that task.
    ctx.onDeferred?.(taskId => deps.logs.share(taskId, logEntry));
    opened?.(logEntry);
    const logPath = logEntry.path;
    const started = deps.clock.now();
    const throttle = progressThrottle(spec, ctx, deps.clock);
    const stopper = stopperFor(deps.clock);
    // A log that cannot be written (disk full) fails this run alone: its processes are stopped.
    let logError: NodeJS.ErrnoException | undefined;
    // Set once the leader is spawned: a log error can only come after that (the log is written from the capture).
    const stopping: { run?: () => Promise<StopReport> } = {};
    const onLogError = (err: NodeJS.ErrnoException): void => ((logError ??= err), void stopping.run?.());
    // The files first, opened off the main thread; then the rest in its turn, in one synchronous
    // step (spawnPacer.ts): a burst of runs leaves the server answering between their starts.
    const files = await openFiles(argv, logEntry, deps, onLogError);
    const begun = 'result' in files ? files : await spawnPacer.run(() => begin({ spec, argv, marker, ctx, deps, logEntry, line: throttle.line, stopper, ...files }));
    if (!('leader' in begun)) {
        await begun.capture?.finish();
        await (begun.output ?? begun.log)?.end();
        await throttle.dispose();
        deps.logs.ended(logEntry, begun.keepLog ? (ctx.ttl ?? INLINE_LOG_KEEP_MS) : 0);
        if (begun.result === undefined) {
            throw begun.error ?? ctx.signal.reason;
        }
        return begun.result;
    }
    const { output, capture } = begun;
    const { child, startError, exited, since } = begun.leader;
    let stopDone: Promise<StopReport> | undefined;
    let timedOut = false;
    const stopRun = (): Promise<StopReport> =>
        (stopDone ??= child.pid === undefined ? Promise.resolve({ survivors: [] }) : stopper.stop({ pgid: child.pid, marker, leaderExited: exited, since, graceMs: spec.killGraceMs }));
    stopping.run = stopRun;
    const timer = spec.timeoutMs === undefined ? undefined : deps.clock.setTimeout(() => ((timedOut = true), void stopRun()), spec.timeoutMs, undefined);
    const onAbort = (): void => void stopRun();
    ctx.signal.addEventListener('abort', onAbort, { once: true });

    const finished: Promise<RunEnd> = (async () => {
        const failure = await startError;
        if (failure) {
            await capture.finish();
            await output.end();
            return { failure };
        }
        const exit = await exited;
        // The leader is gone; anything it left, in its group or not, goes too, so nothing outlives the task.
        const { survivors, unconfirmed } = await stopRun();
        // Everything written up to now, to the last byte; a descendant no scan found (it cleared its environment) cannot hold the run.
        await capture.finish();
        logError ??= capture.readError;
        if (survivors.length > 0) {
            output.write('mcp-tasks', Buffer.from(`${survivorNote(survivors)}\n`));
        }
        await output.end();
        return { exit, survivors, unconfirmed, logError };
    })();
    // A stopped task's end waits for this too, so its result carries the output digest and the log.
    const described = finished.then(async end => {
        deps.clock.clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
        // Before the result, so a client sees the final line as progress first (still within the rate).
        await throttle.dispose();
        const stopped = ctx.signal.aborted;
        const facts = { spec, argv, end, timedOut, stopped, durationMs: deps.clock.now() - started, logPath, taskId: ctx.taskId, readOutput: deps.readOutput, tail: () => output.text(), gap: logEntry.gap };
        const described = await commandResult(facts);
        deps.logs.ended(logEntry, ctx.ttl ?? INLINE_LOG_KEEP_MS);
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

type RunExit = { code: number | null; signal: NodeJS.Signals | null };

interface BeginFacts {
    spec: CommandSpec;
    argv: string[];
    /** RUN_MARKER's value for this run. */
    marker: string;
    ctx: ToolContext;
    deps: RunDeps;
    logEntry: LogEntry;
    /** Each line of output, for progress. */
    line(line: string): void;
    stopper: ReturnType<typeof stopperFor>;
    log: RunLog;
    capture: OutputCapture;
}

/** A run that started (its leader spawned), or one that did not: its result, or what spawn threw, or neither when it was cancelled while it waited. */
type Begun =
    | { output: CommandOutput; capture: OutputCapture; leader: Started }
    | { log?: RunLog; output?: CommandOutput; capture?: OutputCapture; result?: CallToolResult; error?: unknown; keepLog: boolean };

/**
 * The run's log, and the capture file the command writes to (not a pipe, so nothing it printed is
 * lost when it exits at once: capture.ts); either failing is the run's result, not started.
 */
async function openFiles(argv: string[], logEntry: LogEntry, deps: RunDeps, onLogError: (err: NodeJS.ErrnoException) => void): Promise<{ log: RunLog; capture: OutputCapture } | (Begun & { result: CallToolResult })> {
    let log: RunLog;
    try {
        log = await RunLog.open(logEntry, deps.logs.maxBytes, onLogError);
    } catch (err) {
        return { result: logFailure(err as NodeJS.ErrnoException, argv, logEntry.path), keepLog: false };
    }
    try {
        return { log, capture: await OutputCapture.open(`${logEntry.path}.capture`, deps.clock) };
    } catch (err) {
        return { log, result: logFailure(err as NodeJS.ErrnoException, argv, logEntry.path), keepLog: false };
    }
}

/**
 * Everything a run does before its command runs but open its files, synchronously, so the pacer
 * can budget it: the environment and the secrets to hide, the cwd's real path (where the link
 * points now, not when the file was read: the run starts in the folder checked), the spawn.
 */
function begin(facts: BeginFacts): Begun {
    const { spec, argv, ctx, deps, logEntry, log, capture } = facts;
    if (ctx.signal.aborted) {
        return { log, capture, keepLog: false };
    }
    const env = { ...commandEnv(deps.env, spec.env), [RUN_MARKER]: facts.marker };
    const secrets = secretValues(env, spec.env, [...serverSecretsOf(deps.env), ...(deps.serverSecrets ?? [])]);
    const output = new CommandOutput(log, secrets, facts.line, spec.progressPattern !== undefined, TEST_NEEDLES);
    const confined = confineCwd(spec.cwd, spec.roots);
    if (confined.refused !== undefined) {
        const why = `cwd ${confined.refused}`;
        output.write('mcp-tasks', Buffer.from(`Not run: ${why}\n`));
        return { output, capture, result: notStarted(why, argv, logEntry.path), keepLog: true };
    }
    try {
        const leader = startChild(argv, { cwd: confined.real, env, fd: capture.fd }, facts.stopper);
        capture.started({ write: chunk => output.write('out', chunk), drained: () => output.drained() });
        return { output, capture, leader };
    } catch (err) {
        return { output, capture, error: err, keepLog: true };
    }
}

interface Started {
    child: ChildProcess;
    /** Why the program could not start, or undefined once it has. */
    startError: Promise<NodeJS.ErrnoException | undefined>;
    exited: Promise<RunExit>;
    /** The leader's start time, for the stopper. */
    since: number;
}

/**
 * Spawns the run's leader and, in the same turn, listens to it: its 'spawn' or 'error' comes on
 * the next tick, before anything awaiting this could listen.
 */
function startChild(argv: string[], options: { cwd: string; env: NodeJS.ProcessEnv; fd: number }, stopper: ReturnType<typeof stopperFor>): Started {
    const plan = currentPlatform.spawnPlan(argv, options.env);
    const child = spawn(plan.file, plan.args, { ...plan.options, cwd: options.cwd, env: options.env, stdio: ['ignore', options.fd, options.fd] });
    const startError = once(child, 'spawn').then(
        () => undefined,
        (err: NodeJS.ErrnoException) => err,
    );
    const exited = new Promise<RunExit>(resolve => child.once('exit', (code, signal) => resolve({ code, signal })));
    return { child, startError, exited, since: child.pid === undefined ? 0 : stopper.startTimeOf(child.pid) };
}
