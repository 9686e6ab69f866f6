import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Clock } from '../util/clock.js';
import type { CallToolResult, ToolContext } from '../tools/types.js';
import { buildArgv } from './argv.js';
import { OutputCapture } from './capture.js';
import { logFailure, openLog } from './logFile.js';
import { INLINE_LOG_KEEP_MS, type CommandLogs, type LogEntry } from './logs.js';
import { CommandOutput } from './output.js';
import { RUN_MARKER } from './processTable.js';
import { progressThrottle } from './progress.js';
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
    const env = { ...commandEnv(deps.env, spec.env), [RUN_MARKER]: marker };
    const secrets = secretValues(env, spec.env, [...serverSecretsOf(deps.env), ...(deps.serverSecrets ?? [])]);
    const logEntry = deps.logs.create(spec.name, ctx.taskId);
    // A plain call that goes on as a task (--defer-after): read_output reads this log by that task.
    ctx.onDeferred?.(taskId => deps.logs.share(taskId, logEntry));
    opened?.(logEntry);
    const logPath = logEntry.path;
    const started = deps.clock.now();
    const logFile = await openLog(logPath);
    if (logFile.error) {
        deps.logs.ended(logEntry, 0);
        return logFailure(logFile.error, argv, logPath);
    }
    const log = logFile.stream;
    const throttle = progressThrottle(spec, ctx, deps.clock);
    const output = new CommandOutput(log, secrets, throttle.line, spec.progressPattern !== undefined, TEST_NEEDLES);
    // The command writes to a file, not a pipe, so nothing it printed is lost when it exits at once (capture.ts).
    let capture: OutputCapture;
    try {
        capture = await OutputCapture.open(`${logPath}.capture`, deps.clock, { write: chunk => output.write('out', chunk), drained: () => output.drained() });
    } catch (err) {
        await output.end();
        deps.logs.ended(logEntry, 0);
        return logFailure(err as NodeJS.ErrnoException, argv, logPath);
    }
    let child: ChildProcess;
    try {
        const plan = currentPlatform.spawnPlan(argv, env);
        child = spawn(plan.file, plan.args, { ...plan.options, cwd: spec.cwd, env, stdio: ['ignore', capture.fd, capture.fd] });
    } catch (err) {
        await capture.finish();
        await output.end();
        throw err;
    }
    capture.started();
    const startError = once(child, 'spawn').then(
        () => undefined,
        (err: NodeJS.ErrnoException) => err,
    );
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(resolve => child.once('exit', (code, signal) => resolve({ code, signal })));

    const stopper = stopperFor(deps.clock);
    const since = child.pid === undefined ? 0 : stopper.startTimeOf(child.pid);
    let stopping: Promise<StopReport> | undefined;
    let timedOut = false;
    const stop = (): Promise<StopReport> =>
        (stopping ??= child.pid === undefined ? Promise.resolve({ survivors: [] }) : stopper.stop({ pgid: child.pid, marker, leaderExited: exited, since, graceMs: spec.killGraceMs }));
    // A log that cannot be written (disk full) fails this run alone: its processes are stopped.
    let logError: NodeJS.ErrnoException | undefined;
    log.on('error', (err: NodeJS.ErrnoException) => ((logError ??= err), void stop()));
    const timer = spec.timeoutMs === undefined ? undefined : deps.clock.setTimeout(() => ((timedOut = true), void stop()), spec.timeoutMs, undefined);
    const onAbort = (): void => void stop();
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
        const { survivors, unconfirmed } = await stop();
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
        const facts = { spec, argv, end, timedOut, stopped, durationMs: deps.clock.now() - started, logPath, taskId: ctx.taskId, readOutput: deps.readOutput, tail: () => output.text() };
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
