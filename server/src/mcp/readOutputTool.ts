import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { kb } from '../commands/digest.js';
import { GrepBusy } from '../commands/grepWorker.js';
import { DEFAULT_READ_BYTES, GrepTooSlow, MAX_READ_BYTES, readOutput } from '../commands/readOutput.js';
import { invalidParams } from '../rpc/errors.js';
import type { TaskRecord } from '../tasks/types.js';
import type { CallToolResult, OutputLog, ToolDefinition } from '../tools/types.js';
import type { TaskToolCaller } from './caller.js';

export const readOutputTool: ToolDefinition = {
    name: 'read_output',
    title: "Read a task's output",
    description:
        "Reads the output log of a command task (one started with start_<command>, or any task of a command tool), while it runs or after it ended or was cancelled. " +
        'With no options it goes on where your last read in order ended (from the start the first time), up to max_bytes; ' +
        'offset reads from that byte; tail_lines gives the last lines; grep gives the lines matching a regular expression (numbered), with tail_lines the last matches; a search is stopped after 1 s, so keep patterns simple. ' +
        'The answer says where to continue (next offset). A plain tool: call it without a task.',
    inputSchema: z.object({
        task_id: z.string().min(1).max(200).describe('The task id that a start_ tool or list_tasks returned.'),
        offset: z.number().int().min(0).optional().describe('Byte offset to read from, e.g. the next offset of the previous answer; 0 is the start.'),
        tail_lines: z.number().int().min(1).max(1000).optional().describe('Only the last this many lines (or, with grep, matches), e.g. 50.'),
        grep: z.string().min(1).max(200).optional().describe('A JavaScript regular expression, case-sensitive, e.g. "not ok|FAIL|Error:". Returns matching lines with their line numbers.'),
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
        throw invalidParams(`Task ${taskId} (${record.toolName}) has no output log: only command tools keep one, and a log is deleted when its task expires`);
    }
    let grep: RegExp | undefined;
    if (args.grep !== undefined) {
        try {
            grep = new RegExp(args.grep as string);
        } catch (err) {
            throw invalidParams(`grep: ${(err as Error).message}`);
        }
    }
    const reader = session.identity.clientKey;
    const offset = (args.offset as number | undefined) ?? (args.tail_lines === undefined && !grep ? (log.readTo.get(reader) ?? 0) : 0);
    let answer;
    try {
        answer = await readOutput(log.path, { offset, tailLines: args.tail_lines as number | undefined, grep, maxBytes: args.max_bytes as number, caller: reader });
    } catch (err) {
        if (err instanceof GrepTooSlow || err instanceof GrepBusy) {
            throw err;
        }
        throw invalidParams(`The output of task ${taskId} cannot be read: ${log.gone ?? (err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    if (!grep && args.tail_lines === undefined) {
        // Only a read in order moves where the next one starts; a search or a look at the end does not.
        log.readTo.set(reader, answer.next);
    }
    log.seenSize.set(reader, answer.size);
    const state = log.running ? 'still running' : record.status;
    const what = grep
        ? `${answer.matches} line(s) match ${grep}${answer.leftOut ? `; ${answer.text ? answer.text.split('\n').length : 0} shown` : ''}`
        : `bytes ${answer.from}-${answer.next} of ${answer.size}`;
    const more = !grep && answer.next < answer.size ? ` More: read_output with offset ${answer.next}.` : '';
    const head = `Task ${taskId} (${record.toolName}, ${state}): ${what}.${more}`;
    return { content: [{ type: 'text', text: answer.text ? `${head}\n${answer.text}` : `${head}\n(nothing${grep ? ' matched' : ' new'})` }] };
}

/** For get_task: how much output a command task has, and how much is new since this caller last looked. */
export async function outputNews(session: TaskToolCaller, record: TaskRecord): Promise<{ text: string; fields: { output_bytes: number; new_output_bytes: number } } | undefined> {
    const log = outputLog(session, record);
    if (!log || log.gone) {
        return undefined;
    }
    const size = await stat(log.path).then(
        info => info.size,
        () => undefined,
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
