import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { kb } from '../commands/digest.js';
import { GrepBusy } from '../commands/grepWorker.js';
import { writtenOffset } from '../commands/logGap.js';
import { DEFAULT_LINES, DEFAULT_READ_BYTES, GrepTooSlow, MAX_READ_BYTES, readOutput } from '../commands/readOutput.js';
import { invalidParams } from '../rpc/errors.js';
import type { TaskRecord } from '../tasks/types.js';
import type { CallToolResult, OutputLog, ToolDefinition } from '../tools/types.js';
import type { TaskToolCaller } from './caller.js';

export const readOutputTool: ToolDefinition = {
    name: 'read_output',
    title: "Read a task's output",
    description:
        "Reads the output log of a command task (one started with start_<command>, or any task of a command tool), while it runs or after it ended or was cancelled, " +
        "or the whole result of a wrapped tool's task that was too long to hand over in one answer (its answer says so). " +
        'With no options it goes on where your last read in order ended (from the start the first time), up to max_bytes, so calling it again gives only what is new. ' +
        'from_line reads numbered lines (with lines, how many); tail_lines gives the last lines; grep gives the matching lines, numbered from the log\'s start like from_line (context adds lines around each; with tail_lines, the last matches; with follow, only new lines since your last read); offset reads from a byte. ' +
        'A search is stopped after 1 s, so keep patterns simple. The answer says where to continue. A plain tool: call it without a task.',
    inputSchema: z.object({
        task_id: z.string().min(1).max(200).describe('The task id that a start_ tool or list_tasks returned.'),
        offset: z.number().int().min(0).optional().describe('Byte offset to read from, e.g. the next offset of the previous answer; 0 is the start.'),
        from_line: z.number().int().min(1).optional().describe('Read by line from this line (1 is the first), e.g. a line number grep gave minus a few; each line comes numbered.'),
        lines: z.number().int().min(1).max(2000).optional().describe(`With from_line: how many lines (default ${DEFAULT_LINES}).`),
        tail_lines: z.number().int().min(1).max(1000).optional().describe('Only the last this many lines (or, with grep, matches), e.g. 50.'),
        grep: z.string().min(1).max(200).optional().describe('A JavaScript regular expression, case-sensitive, e.g. "not ok|FAIL|Error:". Returns matching lines as "N: text", N the line number.'),
        context: z.number().int().min(0).max(20).optional().describe('With grep: this many lines before and after each match, as "N- text", groups apart by "--", e.g. 3.'),
        follow: z.boolean().optional().describe('Only what was written since your last read in order; with grep, only the new lines that match. Your next read in order starts after it.'),
        max_bytes: z.number().int().min(256).max(MAX_READ_BYTES).default(DEFAULT_READ_BYTES).describe(`At most this many bytes of output in the answer (256 to ${MAX_READ_BYTES}).`),
    }),
    annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false },
    taskSupport: 'forbidden',
};

/** read_output: a command task's log, for the task's own client (or the owner), as get_task checks. */
export async function readTaskOutput(session: TaskToolCaller, args: Record<string, unknown>): Promise<CallToolResult> {
    const taskId = args.task_id as string;
    const record = await session.services.runtime.get(session.identity, taskId);
    const log = outputLog(session, record);
    if (!log) {
        throw invalidParams(`Task ${taskId} (${record.toolName}) has no output log: only command tools keep one (and wrapped tools, of a result too long for one answer), and a log is deleted when its task expires`);
    }
    let grep: RegExp | undefined;
    if (args.grep !== undefined) {
        try {
            grep = new RegExp(args.grep as string);
        } catch (err) {
            throw invalidParams(`grep: ${(err as Error).message}`);
        }
    }
    const fromLine = args.from_line as number | undefined;
    const follow = args.follow === true;
    refuseMixed(args, grep !== undefined);
    const reader = session.identity.clientKey;
    const inOrder = fromLine === undefined && args.tail_lines === undefined && (!grep || follow);
    const offset = (args.offset as number | undefined) ?? (inOrder ? (log.readTo.get(reader) ?? 0) : 0);
    let answer;
    try {
        // Through the guard, so the log's middle is not left out while it is read (runLog.ts).
        answer = await log.guard.read(() => readOutput(log.path, {
            offset,
            fromLine,
            lines: args.lines as number | undefined,
            tailLines: args.tail_lines as number | undefined,
            grep,
            context: args.context as number | undefined,
            maxBytes: args.max_bytes as number,
            caller: reader,
            gap: log.gap,
        }));
    } catch (err) {
        if (err instanceof GrepTooSlow || err instanceof GrepBusy) {
            throw err;
        }
        throw invalidParams(`The output of task ${taskId} cannot be read: ${log.gone ?? (err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    if (inOrder) {
        // Only a read in order (a plain one, or a search that follows) moves where the next one starts; a look by line, at the end or a whole search does not.
        log.readTo.set(reader, answer.next);
    }
    log.seenSize.set(reader, answer.size);
    const state = log.running ? 'still running' : record.status;
    const shownMatches = answer.text ? answer.text.split('\n').filter(line => /^\d+: /.test(line)).length : 0;
    const what = grep
        ? `${answer.matches} line(s) ${follow ? 'written since your last read ' : ''}match ${grep}${answer.leftOut ? `; ${shownMatches} shown` : ''}`
        : answer.firstLine !== undefined
          ? `lines ${answer.firstLine}-${answer.lastLine}`
          : fromLine !== undefined
            ? `no line ${fromLine}: the log has fewer lines`
            : `bytes ${answer.from}-${answer.next} of ${answer.size}`;
    const more =
        fromLine !== undefined && answer.lastLine !== undefined && answer.next < answer.size
            ? ` More: read_output with from_line ${answer.nextLine ?? answer.lastLine + 1}.`
            : !grep && args.tail_lines === undefined && answer.next < answer.size
              ? ` More: read_output with offset ${answer.next}.`
              : '';
    const head = `Task ${taskId} (${record.toolName}, ${state}): ${what}.${more}`;
    return { content: [{ type: 'text', text: answer.text ? `${head}\n${answer.text}` : `${head}\n(nothing${grep ? ' matched' : ' new'})` }] };
}

/** Options that mean two reads at once are refused, saying which to drop. */
function refuseMixed(args: Record<string, unknown>, grep: boolean): void {
    const given = (name: string) => args[name] !== undefined && args[name] !== false;
    if (given('from_line') && ['offset', 'tail_lines', 'grep', 'follow'].some(given)) {
        throw invalidParams('from_line reads by line on its own: leave out offset, tail_lines, grep and follow, or leave out from_line');
    }
    if (given('lines') && !given('from_line')) {
        throw invalidParams('lines goes with from_line: give from_line (1 is the first line), or tail_lines for the last lines');
    }
    if (given('context') && !grep) {
        throw invalidParams('context goes with grep: it shows lines around each match');
    }
    if (given('context') && given('tail_lines')) {
        throw invalidParams('context and tail_lines do not go together: give one of them');
    }
    if (given('follow') && (given('offset') || given('tail_lines'))) {
        throw invalidParams('follow starts where your last read in order ended: leave out offset and tail_lines');
    }
}

/** For get_task: how much output a command task has, and how much is new since this caller last looked. */
export async function outputNews(session: TaskToolCaller, record: TaskRecord): Promise<{ text: string; fields: { output_bytes: number; new_output_bytes: number } } | undefined> {
    const log = outputLog(session, record);
    if (!log || log.gone) {
        return undefined;
    }
    const size = await log.guard.read(() =>
        stat(log.path).then(
            info => writtenOffset(info.size, log.gap),
            () => undefined,
        ),
    );
    if (size === undefined) {
        return undefined;
    }
    const reader = session.identity.clientKey;
    const fresh = Math.max(0, size - (log.seenSize.get(reader) ?? 0));
    log.seenSize.set(reader, size);
    const text = ` Output so far: ${kb(size)}, ${fresh > 0 ? `${kb(fresh)} new since your last call` : 'nothing new since your last call'} (read_output reads it).`;
    return { text, fields: { output_bytes: size, new_output_bytes: fresh } };
}

function outputLog(session: TaskToolCaller, record: TaskRecord): OutputLog | undefined {
    return session.services.tools.get(record.toolName)?.output?.(record.taskId);
}
