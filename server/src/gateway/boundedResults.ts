import { writeFile } from 'node:fs/promises';
import type { Clock } from '../util/clock.js';
import { CommandLogs, INLINE_LOG_KEEP_MS } from '../commands/logs.js';
import type { CallToolResult, OutputLog, ToolContext } from '../tools/types.js';

/** The most of a wrapped tool's result a model is handed, in bytes of text: the bound command results keep (24 KB a get_task answer). */
export const WRAPPED_RESULT_MAX_BYTES = 20 * 1024;
/** Of that: the start, and the end (where a build or a test run says how it ended). */
const HEAD_BYTES = 14 * 1024;
const TAIL_BYTES = 5 * 1024;

/**
 * Wrapped results a model can read: one larger than WRAPPED_RESULT_MAX_BYTES is handed on as its
 * start and its end, once, with a line saying what was left out. For a task (and a plain call that
 * went on as one), the whole result is written to a file that read_output reads by the task's id,
 * for its TTL. The files live in a private folder made on the first such result.
 */
export class BoundedResults {
    private files?: CommandLogs;

    constructor(private readonly clock: Clock) {}

    /** read_output's view of a task's whole result, when it was bounded. */
    output(taskId: string): OutputLog | undefined {
        return this.files?.find(taskId);
    }

    /**
     * `result` as a model gets it. Not async for the usual small result: one check of its length.
     * A tool with an output schema keeps its structured content whole (the SDK clients refuse a
     * success without it); every other tool's goes to the file with the text.
     */
    bound(toolName: string, result: CallToolResult, ctx: ToolContext, keepStructured: boolean): CallToolResult | Promise<CallToolResult> {
        let chars = 0;
        for (const part of result.content) {
            if (part.type === 'text') {
                chars += part.text.length;
            }
        }
        const structured = keepStructured || result.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent, null, 2);
        // A character is at most 3 bytes of UTF-8: below this, no need to count bytes.
        if ((chars + structured.length) * 3 <= WRAPPED_RESULT_MAX_BYTES) {
            return result;
        }
        const text = result.content.flatMap(part => (part.type === 'text' ? [part.text] : [])).join('\n');
        const whole = structured ? `${text}\n--- structuredContent ---\n${structured}` : text;
        if (Buffer.byteLength(whole) <= WRAPPED_RESULT_MAX_BYTES) {
            return result;
        }
        return this.digest(toolName, result, whole, ctx, keepStructured);
    }

    private async digest(toolName: string, result: CallToolResult, whole: string, ctx: ToolContext, keepStructured: boolean): Promise<CallToolResult> {
        const taskId = ctx.taskId;
        let where: string;
        if (taskId !== undefined) {
            this.files ??= new CommandLogs({ clock: this.clock });
            const entry = this.files.create(`${toolName}-result`, taskId);
            await writeFile(entry.path, whole, { mode: 0o600 });
            this.files.ended(entry, ctx.ttl ?? INLINE_LOG_KEEP_MS);
            where = `read_output with task_id "${taskId}" reads all of it (from_line, grep, tail_lines)`;
        } else {
            where = `start_${toolName} runs it in the background, and read_output then reads the whole result`;
        }
        const head = cutAtLine(whole, HEAD_BYTES, 'start');
        const tail = cutAtLine(whole, TAIL_BYTES, 'end');
        const left = Buffer.byteLength(whole) - Buffer.byteLength(head) - Buffer.byteLength(tail);
        const lines = countLines(whole) - countLines(head) - countLines(tail);
        const note = `[… ${lines} line(s), ${Math.round(left / 1024)} KB of ${toolName}'s result left out here: ${where} …]`;
        const bounded: CallToolResult = { content: [{ type: 'text', text: `${head}\n${note}\n${tail}` }, ...result.content.filter(part => part.type !== 'text')] };
        if (keepStructured && result.structuredContent !== undefined) {
            bounded.structuredContent = result.structuredContent;
        }
        if (result.isError) {
            bounded.isError = true;
        }
        return bounded;
    }

    close(): void {
        this.files?.close();
    }
}

/** At most `bytes` of `text` from its start or its end, cut at a line break when one is near. */
function cutAtLine(text: string, bytes: number, from: 'start' | 'end'): string {
    // Characters first (a bound in bytes is at least as many characters), then shrunk to bytes.
    let part = from === 'start' ? text.slice(0, bytes) : text.slice(-bytes);
    while (Buffer.byteLength(part) > bytes) {
        part = from === 'start' ? part.slice(0, Math.floor(part.length * 0.9)) : part.slice(Math.ceil(part.length * 0.1));
    }
    // Never half a surrogate pair at the cut.
    part = from === 'start' ? part.replace(/[\uD800-\uDBFF]$/, '') : part.replace(/^[\uDC00-\uDFFF]/, '');
    const at = from === 'start' ? part.lastIndexOf('\n') : part.indexOf('\n');
    // Whole lines, unless that would leave less than half.
    if (at >= 0 && (from === 'start' ? at > part.length / 2 : at < part.length / 2)) {
        part = from === 'start' ? part.slice(0, at) : part.slice(at + 1);
    }
    return part;
}

function countLines(text: string): number {
    let n = text.length > 0 ? 1 : 0;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
        n++;
    }
    return n;
}
