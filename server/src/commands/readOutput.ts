import { open } from 'node:fs/promises';
import { GrepRunner } from './grepWorker.js';
import { stripAnsi } from './scan.js';

export const DEFAULT_READ_BYTES = 8 * 1024;
/** A read answers in one block under 24 KB. */
export const MAX_READ_BYTES = 20 * 1024;
const MAX_GREP_LINE = 2000;

export interface ReadRequest {
    /** Byte offset to read from. */
    offset: number;
    tailLines?: number;
    /** Run in a worker against a deadline (grepWorker.ts): the pattern is the caller's. */
    grep?: RegExp;
    maxBytes: number;
    /** Who asks (a client key), so one caller's searches cannot fill the line for the others. */
    caller?: string;
    /** The runner for grep; the process's shared one by default. */
    greps?: GrepRunner;
}

/** One runner for the whole process: its workers share the machine's cores whatever the server. */
const sharedGreps = new GrepRunner();

export interface ReadAnswer {
    text: string;
    /** The log's size when read. */
    size: number;
    /** Where the text starts and where the next read should (the end of what was read). */
    from: number;
    next: number;
    /** Lines that matched `grep` (all of them, shown or not). */
    matches?: number;
    /** Matches or bytes left out to stay within maxBytes. */
    leftOut: boolean;
}

/** Reads part of a log: bytes from an offset, its last lines, or the lines matching a pattern; at most maxBytes of text. */
export async function readOutput(path: string, request: ReadRequest): Promise<ReadAnswer> {
    const file = await open(path, 'r');
    try {
        const { size } = await file.stat();
        const offset = Math.min(request.offset, size);
        if (request.grep) {
            return await grepLines(path, size, offset, request);
        }
        if (request.tailLines !== undefined) {
            return await tailLines(file, size, request.tailLines, request.maxBytes);
        }
        const length = Math.min(size - offset, request.maxBytes);
        const buffer = Buffer.alloc(length);
        await file.read(buffer, 0, length, offset);
        // A read that stops short ends at a line end (unless one line is longer than the whole read).
        let end = length;
        if (offset + length < size) {
            const newline = buffer.lastIndexOf(0x0a);
            end = newline >= 0 ? newline + 1 : length;
        }
        const text = stripAnsi(buffer.toString('utf8', 0, end).replace(/\uFFFD$/, ''));
        return { text, size, from: offset, next: offset + end, leftOut: offset + end < size };
    } finally {
        await file.close();
    }
}

type FileHandle = Awaited<ReturnType<typeof open>>;

async function tailLines(file: FileHandle, size: number, count: number, maxBytes: number): Promise<ReadAnswer> {
    const from = Math.max(0, size - maxBytes);
    const buffer = Buffer.alloc(size - from);
    await file.read(buffer, 0, buffer.length, from);
    let lines = buffer.toString('utf8').split('\n');
    if (lines.at(-1) === '') {
        lines.pop();
    }
    // Read from the middle of the file: the first line is most likely a piece of one.
    const partial = from > 0 ? 1 : 0;
    const kept = lines.slice(Math.max(partial, lines.length - count));
    const leftOut = lines.length - partial > kept.length || from > 0;
    lines = kept;
    const text = stripAnsi(lines.join('\n'));
    return { text, size, from: size - Buffer.byteLength(lines.join('\n') + (lines.length > 0 ? '\n' : '')), next: size, leftOut };
}

/** Thrown when a grep's pattern is still searching at the deadline: the message is for the model that wrote it. */
export class GrepTooSlow extends Error {}

/** The matching lines, searched in a worker against a deadline (grepWorker.ts); the worker's lines are numbered from `offset`. */
async function grepLines(path: string, size: number, offset: number, request: ReadRequest): Promise<ReadAnswer> {
    const pattern = request.grep!;
    const runner = request.greps ?? sharedGreps;
    const outcome = await runner.grep(request.caller ?? '', { path, offset, size, pattern, tailLines: request.tailLines, maxBytes: request.maxBytes, maxLine: MAX_GREP_LINE });
    if (!outcome.done) {
        const where = outcome.line > 0 ? `on line ${offset === 0 ? outcome.line : `+${outcome.line}`}` : 'before the first line';
        throw new GrepTooSlow(
            `grep stopped after ${runner.deadlineMs / 1000} s ${where}: the pattern ${pattern} backtracks too much on that text (a repeated group inside a repetition, such as (a+)+ or (\\w+\\s?)*, can take exponential time). ` +
                'Search again with a simpler pattern, such as a word or phrase from the line you want.',
        );
    }
    const { shown, matches } = outcome;
    return { text: shown.join('\n'), size, from: offset, next: size, matches, leftOut: shown.length < matches };
}
