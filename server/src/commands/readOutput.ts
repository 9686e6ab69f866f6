import { open } from 'node:fs/promises';
import { GrepRunner } from './grepWorker.js';
import { fileLine, fileOffset, writtenLine, writtenOffset, type LogGap } from './logGap.js';
import { stripAnsi } from './scan.js';

export const DEFAULT_READ_BYTES = 8 * 1024;
/** A read answers in one block under 24 KB. */
export const MAX_READ_BYTES = 20 * 1024;
const MAX_GREP_LINE = 2000;

export interface ReadRequest {
    /** Byte offset to read from. */
    offset: number;
    /** Read by line instead: from this line (1 is the first), `lines` of them, each numbered. */
    fromLine?: number;
    lines?: number;
    tailLines?: number;
    /** With grep: lines shown before and after each match. */
    context?: number;
    /** Run in a worker against a deadline (grepWorker.ts): the pattern is the caller's. */
    grep?: RegExp;
    maxBytes: number;
    /** Who asks (a client key), so one caller's searches cannot fill the line for the others. */
    caller?: string;
    /** The runner for grep; the process's shared one by default. */
    greps?: GrepRunner;
    /** The middle the log left out, if it did: offsets and line numbers given and answered are the output's as written (logGap.ts). */
    gap?: LogGap;
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
    /** For a read by line or of the last lines: the first and last line shown, numbered from the log's start. */
    firstLine?: number;
    lastLine?: number;
    /** For a read by line: the line to read next (past the lines a marker stands for). */
    nextLine?: number;
    /** Lines that matched `grep` (all of them, shown or not). */
    matches?: number;
    /** Matches or bytes left out to stay within maxBytes. */
    leftOut: boolean;
}

/**
 * Reads part of a log: bytes from an offset, its last lines, or the lines matching a pattern; at
 * most maxBytes of text. With a gap, the file is read as it is and every offset, size and line
 * number is turned into the output's as written at the edges, so they stay the same for a reader
 * however much more is left out later.
 */
export async function readOutput(path: string, request: ReadRequest): Promise<ReadAnswer> {
    const { gap } = request;
    const answer = await readFile(path, { ...request, offset: fileOffset(request.offset, gap), fromLine: request.fromLine === undefined ? undefined : fileLine(request.fromLine, gap) });
    const line = (n: number | undefined) => (n === undefined ? undefined : writtenLine(n, gap));
    return {
        ...answer,
        size: writtenOffset(answer.size, gap),
        from: writtenOffset(answer.from, gap),
        next: writtenOffset(answer.next, gap),
        firstLine: line(answer.firstLine),
        lastLine: line(answer.lastLine),
        nextLine: answer.lastLine === undefined ? undefined : writtenLine(answer.lastLine + 1, gap),
    };
}

/** readOutput on the file as it is: offsets and line numbers are the file's (grep's are turned in the worker). */
async function readFile(path: string, request: ReadRequest): Promise<ReadAnswer> {
    const file = await open(path, 'r');
    try {
        const { size } = await file.stat();
        const offset = Math.min(request.offset, size);
        if (request.grep) {
            return await grepLines(path, size, offset, request);
        }
        if (request.fromLine !== undefined) {
            return await linesFrom(file, size, request.fromLine, request.lines ?? DEFAULT_LINES, request.maxBytes, request.gap);
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

/** Lines a read by line gives when the caller names no count. */
export const DEFAULT_LINES = 200;
/** How much of a log is scanned for line ends per read: a large log is counted in slices, the event loop turning between them. */
const SCAN_BYTES = 1024 * 1024;

/**
 * Reads the log from its start up to byte `end` in slices, calling `onLineEnd` with the position of
 * each line end until it returns true; resolves with that position, or undefined.
 */
async function scanLineEnds(file: FileHandle, end: number, onLineEnd: (position: number) => boolean): Promise<number | undefined> {
    const buffer = Buffer.allocUnsafe(Math.min(SCAN_BYTES, Math.max(1, end)));
    for (let position = 0; position < end; ) {
        const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, end - position), position);
        if (bytesRead === 0) {
            break;
        }
        const chunk = buffer.subarray(0, bytesRead);
        for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) {
            if (onLineEnd(position + i)) {
                return position + i;
            }
        }
        position += bytesRead;
    }
    return undefined;
}

/** How many line ends come before byte `end`. */
async function lineEndsBefore(file: FileHandle, end: number): Promise<number> {
    let count = 0;
    await scanLineEnds(file, end, () => (count++, false));
    return count;
}

/** Where line `line` (1 is the first) starts, or the size when the log has fewer lines. */
async function lineStart(file: FileHandle, size: number, line: number): Promise<number> {
    if (line <= 1) {
        return 0;
    }
    let seen = 0;
    const end = await scanLineEnds(file, size, () => ++seen === line - 1);
    return end === undefined ? size : end + 1;
}

/** `count` lines from line `first` of the file, each as "N: text" (N as written), within maxBytes (at least one line, cut if it alone is longer). */
async function linesFrom(file: FileHandle, size: number, first: number, count: number, maxBytes: number, gap: LogGap | undefined): Promise<ReadAnswer> {
    const from = await lineStart(file, size, first);
    const length = Math.min(size - from, maxBytes);
    const buffer = Buffer.alloc(length);
    await file.read(buffer, 0, length, from);
    const lines = buffer.toString('utf8').replace(/\uFFFD$/, '').split('\n');
    // The last piece is a whole line only when the read reached the end of the log.
    const whole = from + length >= size ? lines : lines.slice(0, -1);
    if (whole.at(-1) === '' && from + length >= size) {
        whole.pop();
    }
    const shown: string[] = [];
    let used = 0;
    let next = from;
    for (const line of whole.slice(0, count)) {
        const entry = `${writtenLine(first + shown.length, gap)}: ${stripAnsi(line.endsWith('\r') ? line.slice(0, -1) : line)}`;
        if (shown.length > 0 && used + Buffer.byteLength(entry) + 1 > maxBytes) {
            break;
        }
        shown.push(entry);
        used += Buffer.byteLength(entry) + 1;
        next += Buffer.byteLength(line) + 1;
    }
    next = Math.min(next, size);
    const last = first + shown.length - 1;
    return { text: shown.join('\n'), size, from, next, firstLine: shown.length > 0 ? first : undefined, lastLine: shown.length > 0 ? last : undefined, leftOut: next < size };
}

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
    // The last line of a running log may still be being written, its newline not there yet.
    const ended = buffer.length > 0 && buffer[buffer.length - 1] === 0x0a;
    const start = size - Buffer.byteLength(lines.join('\n') + (lines.length > 0 && ended ? '\n' : ''));
    // Numbered as a read by line would number them, so the two agree.
    const firstLine = lines.length > 0 ? (await lineEndsBefore(file, start)) + 1 : undefined;
    return { text, size, from: start, next: size, firstLine, lastLine: firstLine === undefined ? undefined : firstLine + lines.length - 1, leftOut };
}

/** Thrown when a grep's pattern is still searching at the deadline: the message is for the model that wrote it. */
export class GrepTooSlow extends Error {}

/** The matching lines, searched in a worker against a deadline (grepWorker.ts); the worker's lines are numbered from `offset`. */
async function grepLines(path: string, size: number, offset: number, request: ReadRequest): Promise<ReadAnswer> {
    const pattern = request.grep!;
    const runner = request.greps ?? sharedGreps;
    const gap = request.gap === undefined ? undefined : { line: request.gap.headLines + 1, skipped: request.gap.droppedLines - 1 };
    const outcome = await runner.grep(request.caller ?? '', { path, offset, size, pattern, tailLines: request.tailLines, context: request.context, maxBytes: request.maxBytes, maxLine: MAX_GREP_LINE, gap });
    if (!outcome.done) {
        const where = outcome.line > 0 ? `on line ${outcome.line}` : 'before the first line';
        throw new GrepTooSlow(
            `grep stopped after ${runner.deadlineMs / 1000} s ${where}: the pattern ${pattern} backtracks too much on that text (a repeated group inside a repetition, such as (a+)+ or (\\w+\\s?)*, can take exponential time). ` +
                'Search again with a simpler pattern, such as a word or phrase from the line you want.',
        );
    }
    const { shown, matches } = outcome;
    const matchesShown = shown.filter(entry => /^\d+: /.test(entry)).length;
    return { text: shown.join('\n'), size, from: offset, next: size, matches, leftOut: matchesShown < matches };
}
