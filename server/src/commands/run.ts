import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
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
import { commandEnv, secretValues, serverSecretsOf } from './secrets.js';
import type { CommandSpec } from './spec.js';
import { currentPlatform } from '../platform/index.js';
import { stopperFor, type StopReport } from './stopper.js';
import type { JobFacts, JobFiles } from './jobFile.js';
import { supervise, type KeptJob, type Leader, type RunExit } from './supervise.js';
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
    /** Where command tasks record what a later server needs to re-adopt them; absent: they stop with this server. */
    jobs?: JobKeeping;
}

/** Command tasks that outlive their server (keeper.ts, adopt.ts). */
export interface JobKeeping {
    files: JobFiles;
    /** How long after its server is gone a job waits for another to re-adopt it before it is stopped. */
    windowSeconds: number;
    /** This server's store worker id. */
    worker: string;
}

/**
 * Runs one command to its end in its own process group (supervise.ts follows it): output to a log
 * file and a tail, throttled progress, a timeout, the stop. A task's command, where the store is
 * durable, runs under a keeper (keeper.ts) and can outlive this server.
 */
export async function runCommand(spec: CommandSpec, args: Record<string, unknown>, ctx: ToolContext, deps: RunDeps, opened?: (log: LogEntry) => void): Promise<CallToolResult> {
    const argv = buildArgv(spec, args);
    const marker = randomUUID();
    const logEntry = deps.logs.create(spec.name, ctx.taskId);
    // A plain call that goes on as a task (--defer-after): read_output reads this log by that task.
    ctx.onDeferred?.(taskId => deps.logs.share(taskId, logEntry));
    opened?.(logEntry);
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
    const keep = ctx.taskId !== undefined && currentPlatform.keptPlan !== undefined ? deps.jobs : undefined;
    const files = await openFiles(argv, logEntry, deps, onLogError, keep !== undefined);
    const begun = 'result' in files ? files : await spawnPacer.run(() => begin({ spec, argv, marker, ctx, deps, logEntry, line: throttle.line, stopper, keep, ...files }));
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
    const { output, capture, leader } = begun;
    const job = leader.lifeline && keep ? recordJob(keep, { spec, argv, ctx, marker, logEntry, leader, startedAt: started }) : undefined;
    return supervise({ spec, argv, ctx, deps, logEntry, output, capture, leader, marker, started, throttle, stopper, stopping, onLogError: () => logError, job });
}

/** Writes the job file of a run that may outlive the server; without one, the run stops with its server as before. */
function recordJob(keep: JobKeeping, run: { spec: CommandSpec; argv: string[]; ctx: ToolContext; marker: string; logEntry: LogEntry; leader: Started; startedAt: number }): KeptJob | undefined {
    const { leader } = run;
    const child = leader.child!;
    const facts: JobFacts = {
        v: 1,
        taskId: run.ctx.taskId!,
        worker: keep.worker,
        tool: run.spec.name,
        argv: run.argv,
        pid: child.pid!,
        start: currentPlatform.processTable.startTimeOf(child.pid!),
        since: leader.since,
        marker: run.marker,
        capture: `${run.logEntry.path}.capture`,
        log: run.logEntry.path,
        status: leader.statusPath!,
        startedAt: run.startedAt,
        windowSeconds: keep.windowSeconds,
    };
    if (!keep.files.write(facts)) {
        leader.lifeline?.destroy();
        return undefined;
    }
    return { facts, files: keep.files, letGo: () => (leader.lifeline?.destroy(), child.unref()) };
}
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
    keep?: JobKeeping;
}

/** A run that started (its leader spawned), or one that did not: its result, or what spawn threw, or neither when it was cancelled while it waited. */
type Begun =
    | { output: CommandOutput; capture: OutputCapture; leader: Started }
    | { log?: RunLog; output?: CommandOutput; capture?: OutputCapture; result?: CallToolResult; error?: unknown; keepLog: boolean };

/**
 * The run's log, and the capture file the command writes to (not a pipe, so nothing it printed is
 * lost when it exits at once: capture.ts); either failing is the run's result, not started.
 */
async function openFiles(argv: string[], logEntry: LogEntry, deps: RunDeps, onLogError: (err: NodeJS.ErrnoException) => void, keepAll: boolean): Promise<{ log: RunLog; capture: OutputCapture } | (Begun & { result: CallToolResult })> {
    let log: RunLog;
    try {
        log = await RunLog.open(logEntry, deps.logs.maxBytes, onLogError);
    } catch (err) {
        return { result: logFailure(err as NodeJS.ErrnoException, argv, logEntry.path), keepLog: false };
    }
    try {
        return { log, capture: await OutputCapture.open(`${logEntry.path}.capture`, deps.clock, keepAll) };
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
        const kept = facts.keep && { statusPath: `${logEntry.path}.status`, windowSeconds: facts.keep.windowSeconds };
        const leader = startChild(argv, { cwd: confined.real, env, fd: capture.fd, kept }, facts.stopper);
        capture.started({ write: chunk => output.write('out', chunk), drained: () => output.drained() });
        return { output, capture, leader };
    } catch (err) {
        return { output, capture, error: err, keepLog: true };
    }
}

interface Started extends Leader {
    child: ChildProcess;
    /** Kept runs: the server's end of the keeper's lifeline, and the keeper's status file. */
    lifeline?: Socket;
    statusPath?: string;
}

/**
 * Spawns the run's leader and, in the same turn, listens to it: its 'spawn' or 'error' comes on
 * the next tick, before anything awaiting this could listen. A kept run's leader is its keeper,
 * whose descriptor 3 is the lifeline this server holds.
 */
function startChild(argv: string[], options: { cwd: string; env: NodeJS.ProcessEnv; fd: number; kept?: { statusPath: string; windowSeconds: number } }, stopper: ReturnType<typeof stopperFor>): Started {
    const { kept } = options;
    const direct = currentPlatform.spawnPlan(argv, options.env);
    const plan = (kept && currentPlatform.keptPlan?.(direct, options.env, options.cwd, kept.statusPath, kept.windowSeconds)) || direct;
    const lifeline = plan !== direct;
    const stdio: ('ignore' | 'pipe' | number)[] = lifeline ? ['ignore', options.fd, options.fd, 'pipe'] : ['ignore', options.fd, options.fd];
    const child = spawn(plan.file, plan.args, { ...plan.options, cwd: options.cwd, env: options.env, stdio });
    const startError = once(child, 'spawn').then(
        () => undefined,
        (err: NodeJS.ErrnoException) => err,
    );
    const exited = new Promise<RunExit>(resolve => child.once('exit', (code, signal) => resolve({ code, signal })));
    const pipe = lifeline ? (child.stdio[3] as Socket | null) : null;
    // Held, never written: it only has to stay open while this server lives; it keeps no one alive.
    pipe?.unref();
    return { child, pid: child.pid, startError, exited, since: child.pid === undefined ? 0 : stopper.startTimeOf(child.pid), lifeline: pipe ?? undefined, statusPath: lifeline ? kept?.statusPath : undefined };
}
