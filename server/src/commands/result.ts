import { z } from 'zod';
import { errorMessage } from '../util/log.js';
import type { CallToolResult } from '../tools/types.js';
import { displayCommand } from './argv.js';
import { digest } from './digest.js';
import { logFailureText, startFailure } from './logFile.js';
import type { LogGap } from './logGap.js';
import { scanLog, scanText, type OutputScan } from './scan.js';
import type { CommandSpec } from './spec.js';
import { statusDigest } from './status.js';
import { survivorNote, type Survivor } from './stopper.js';

/** How a run ended: it could not start, or its leader exited. */
export interface RunEnd {
    failure?: NodeJS.ErrnoException;
    exit?: { code: number | null; signal: NodeJS.Signals | null };
    /** Processes of the run its stop could not end. */
    survivors?: Survivor[];
    /** Why the stop could not see the run's other processes end (StopReport.unconfirmed). */
    unconfirmed?: string;
    /** Why the log could not be written (the disk is full): the run was stopped. */
    logError?: NodeJS.ErrnoException;
}

export interface RunFacts {
    spec: CommandSpec;
    argv: string[];
    end: RunEnd;
    timedOut: boolean;
    /** The task was stopped (cancelled, shut down, abandoned). */
    stopped: boolean;
    durationMs: number;
    logPath: string;
    /** The task the run is; absent in an inline call. */
    taskId?: string;
    /** read_output is served (the task tools are on): what the model reads names it. */
    readOutput?: boolean;
    /** The last lines kept in memory, read when the log file cannot be. */
    tail(): string;
    /** The middle the log left out to stay within its limit, if it did. */
    gap?: LogGap;
}

/** The structured result of a command tool: the facts once, the output only in `summary` (the digest). */
export const commandOutputSchema = z.object({
    status: z.enum(['completed', 'failed', 'timed_out', 'cancelled', 'not_started']),
    command: z.array(z.string()),
    exitCode: z.number().nullable(),
    signal: z.string().nullable().optional(),
    durationMs: z.number(),
    logPath: z.string().describe('The full output'),
    logBytes: z.number(),
    logLines: z.number(),
    summary: z.string().describe('What happened: status, the lines matching the failure pattern with context, the first and last lines, the log'),
    survivors: z
        .array(z.object({ pid: z.number(), command: z.string() }))
        .optional()
        .describe('Processes of the run that could not be stopped'),
    stopUnconfirmed: z.string().optional().describe('Why the stop could not confirm that the processes the command started ended'),
});

/**
 * A run's result for a model, whatever host shows it: the digest is the first content block (all
 * some hosts show of an error) and `structuredContent.summary` (all Claude Code shows of a
 * success). A failure also concludes with a short digest, the task's statusMessage (all VS Code
 * shows of a failed task).
 */
export async function commandResult(facts: RunFacts): Promise<{ result: CallToolResult; conclusion?: string }> {
    const { spec, argv, end, durationMs, logPath, taskId, readOutput } = facts;
    const seconds = `${(durationMs / 1000).toFixed(1)} s`;
    const line = displayCommand(argv);
    const shownCommand = line.length > 200 ? `${line.slice(0, 200)}…` : line;
    let status: z.infer<typeof commandOutputSchema>['status'];
    let headline: string;
    const { code = null, signal = null } = end.exit ?? {};
    if (end.failure) {
        const err = end.failure;
        status = 'not_started';
        headline = startFailure(err, argv, spec.cwd);
    } else if (end.logError) {
        status = 'failed';
        headline = `${logFailureText(end.logError, logPath)}; the command was stopped after ${seconds}: ${shownCommand}`;
    } else if (facts.stopped) {
        status = 'cancelled';
        const how = end.unconfirmed === undefined ? 'Stopped' : `Stopped, but ${end.unconfirmed},`;
        headline = `${how} after ${seconds}${signal ? ` (${signal})` : code !== null ? ` (exit ${code})` : ''}: ${shownCommand}`;
    } else if (facts.timedOut) {
        status = 'timed_out';
        headline = `timed out after ${spec.timeoutMs! / 1000} s${signal ? ` (stopped with ${signal})` : ''}${end.unconfirmed === undefined ? '' : `; the stop ${end.unconfirmed}`}: ${shownCommand}`;
    } else if (code !== 0) {
        status = 'failed';
        headline = `${code === null ? `killed by ${signal}` : `exit ${code}`} after ${seconds}: ${shownCommand}`;
    } else {
        status = 'completed';
        headline = `exit 0 in ${seconds}: ${shownCommand}`;
    }
    const survivors = end.survivors ?? [];
    if (survivors.length > 0) {
        headline += `\n${survivorNote(survivors)}`;
    }
    const scan = await scanOutput(facts);
    const text = digest({ headline, scan, logPath, taskId: readOutput ? taskId : undefined });
    const structuredContent = {
        status,
        command: argv,
        exitCode: end.failure ? null : code,
        signal,
        durationMs,
        logPath,
        logBytes: scan.bytes,
        logLines: scan.lines,
        summary: text,
        ...(survivors.length > 0 ? { survivors } : {}),
        ...(end.unconfirmed !== undefined ? { stopUnconfirmed: end.unconfirmed } : {}),
    };
    const failed = status !== 'completed';
    const result: CallToolResult = { content: [{ type: 'text', text }], structuredContent };
    if (failed) {
        result.isError = true;
    }
    return { result, conclusion: failed && status !== 'cancelled' ? statusDigest({ headline, scan, logPath, taskId, readOutput, cwd: spec.cwd }) : undefined };
}

async function scanOutput(facts: RunFacts): Promise<OutputScan> {
    try {
        return await scanLog(facts.logPath, facts.spec.failurePattern, facts.gap);
    } catch (err) {
        // The log could not be read back: the last lines kept in memory still tell the story.
        const scan = scanText(facts.tail(), facts.spec.failurePattern);
        scan.head.unshift({ text: `(the log could not be read: ${errorMessage(err)}; these are the last lines kept in memory)` });
        return scan;
    }
}
