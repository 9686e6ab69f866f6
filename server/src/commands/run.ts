import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Clock } from '../clock.js';
import type { CallToolResult, ToolContext } from '../tools/types.js';
import { buildArgv } from './argv.js';
import { stopGroup } from './group.js';
import { INLINE_LOG_KEEP_MS, type CommandLogs, type LogEntry } from './logs.js';
import { CommandOutput, percentOf } from './output.js';
import { commandResult, type RunEnd } from './result.js';
import { commandEnv, secretValues } from './secrets.js';
import type { CommandSpec } from './spec.js';

/** At most this many progress notifications per second per task. */
export const PROGRESS_PER_SECOND = 4;

export interface RunDeps {
    clock: Clock;
    /** Where each run's log file goes, and how long it stays. */
    logs: CommandLogs;
    /** The server's environment (commands inherit it, minus the server's own settings). */
    env: NodeJS.ProcessEnv;
}

/**
 * Runs one command to its end in its own process group: output to a log file and a tail,
 * throttled progress, a timeout, and on cancel SIGTERM then SIGKILL to the whole group. Returns
 * (and, as a task, lets the end be recorded) only once no process of the group is left.
 */
export async function runCommand(spec: CommandSpec, args: Record<string, unknown>, ctx: ToolContext, deps: RunDeps, opened?: (log: LogEntry) => void): Promise<CallToolResult> {
    const argv = buildArgv(spec, args);
    const env = commandEnv(deps.env, spec.env);
    const secrets = secretValues(env, spec.env);
    const logEntry = deps.logs.create(spec.name, ctx.taskId);
    opened?.(logEntry);
    const logPath = logEntry.path;
    const started = deps.clock.now();
    const log = createWriteStream(logPath, { mode: 0o600 });
    const throttle = progressThrottle(spec, ctx, deps.clock);
    const output = new CommandOutput(log, secrets, throttle.line, spec.progressPattern !== undefined);
    const child = spawn(argv[0]!, argv.slice(1), { cwd: spec.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const startError = once(child, 'spawn').then(
        () => undefined,
        (err: NodeJS.ErrnoException) => err,
    );
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(resolve => child.once('exit', (code, signal) => resolve({ code, signal })));
    const streamsDone = Promise.all([child.stdout && once(child.stdout, 'close'), child.stderr && once(child.stderr, 'close')]);
    for (const [name, stream] of [['out', child.stdout], ['err', child.stderr]] as const) {
        stream?.on('data', (chunk: Buffer) => {
            if (!output.write(name, chunk)) {
                // The log file is behind: the pipe fills and the command waits, instead of the server's memory growing.
                stream.pause();
                void output.drained().then(() => stream.resume());
            }
        });
    }

    let stopping: Promise<void> | undefined;
    let timedOut = false;
    const stop = (): Promise<void> => (stopping ??= child.pid === undefined ? Promise.resolve() : stopGroup(child.pid, exited, spec.killGraceMs, deps.clock));
    const timer = spec.timeoutMs === undefined ? undefined : deps.clock.setTimeout(() => ((timedOut = true), void stop()), spec.timeoutMs, undefined);
    const onAbort = (): void => void stop();
    ctx.signal.addEventListener('abort', onAbort, { once: true });

    const finished: Promise<RunEnd> = (async () => {
        const failure = await startError;
        if (failure) {
            await output.end();
            return { failure };
        }
        const exit = await exited;
        // The leader is gone; anything it left in its group goes too, so nothing outlives the task.
        await stop();
        await streamsDone;
        await output.end();
        return { exit };
    })();
    // A stopped task's end waits for this too, so its result carries the output digest and the log.
    const described = finished.then(async end => {
        deps.clock.clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
        // Before the result, so a client sees the final line as progress first (still within the rate).
        await throttle.dispose();
        const stopped = ctx.signal.aborted;
        const facts = { spec, argv, end, timedOut, stopped, durationMs: deps.clock.now() - started, logPath, taskId: ctx.taskId, tail: () => output.text() };
        const described = await commandResult(facts);
        deps.logs.ended(logEntry, ctx.ttl ?? INLINE_LOG_KEEP_MS);
        // Read again: a stop that came while the digest was made (the command had ended) still gets it.
        if (ctx.signal.aborted) {
            ctx.annotateStop?.(described.result);
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

/** Reports the latest line as progress at most PROGRESS_PER_SECOND times a second: the last line of each window wins. */
function progressThrottle(spec: CommandSpec, ctx: ToolContext, clock: Clock): { line(line: string): void; dispose(): Promise<void> } {
    // 5 % slack: timers fire late and frames leave a moment after, so sends spaced exactly 250 ms
    // apart can still arrive as 5 within one second at the client.
    const interval = 1050 / PROGRESS_PER_SECOND;
    let sent = 0;
    let lastAt = -Infinity;
    let percent: number | undefined;
    let pending: string | undefined;
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const flush = (): void => {
        timer = undefined;
        if (pending === undefined || ctx.signal.aborted) {
            return;
        }
        lastAt = clock.now();
        const message = pending;
        pending = undefined;
        sent += 1;
        if (percent === undefined) {
            ctx.progress(sent, undefined, message);
        } else {
            ctx.progress(percent, 100, message);
        }
    };
    return {
        line(line) {
            percent = percentOf(spec.progressPattern, line) ?? percent;
            if (!line.trim()) {
                return;
            }
            pending = line;
            if (timer === undefined) {
                timer = clock.setTimeout(flush, Math.max(0, lastAt + interval - clock.now()), undefined);
            }
        },
        /** The last line still waiting goes out as soon as the rate allows: a client sees how the output ended. */
        dispose() {
            clock.clearTimeout(timer);
            timer = undefined;
            const wait = lastAt + interval - clock.now();
            if (pending === undefined || ctx.signal.aborted || wait <= 0) {
                flush();
                return Promise.resolve();
            }
            return new Promise<void>(resolve => clock.setTimeout(() => (flush(), resolve()), wait, undefined));
        },
    };
}
