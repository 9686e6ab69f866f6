import { open } from 'node:fs/promises';
import { readLines, stripAnsi } from './scan.js';

export const DEFAULT_READ_BYTES = 8 * 1024;
/** A read answers in one block under 24 KB. */
export const MAX_READ_BYTES = 20 * 1024;
const MAX_GREP_LINE = 2000;

export interface ReadRequest {
    /** Byte offset to read from. */
    offset: number;
    tailLines?: number;
    grep?: RegExp;
    maxBytes: number;
}

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
            return await grepLines(file, size, offset, request);
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

async function grepLines(file: FileHandle, size: number, offset: number, request: ReadRequest): Promise<ReadAnswer> {
    const shown: string[] = [];
    let bytes = 0;
    let matches = 0;
    let n = 0;
    let full = false;
    const pattern = request.grep!;
    await readLines(file, Buffer.allocUnsafe(64 * 1024), offset, size, raw => {
        n++;
        // Tested cut: the pattern is the caller's, and a long line must not make it slow.
        const line = stripAnsi(raw.endsWith('\r') ? raw.slice(0, -1) : raw).slice(0, MAX_GREP_LINE + 1);
        if (!pattern.test(line)) {
            return;
        }
        matches++;
        const entry = `${offset === 0 ? n : `+${n}`}: ${line.length > MAX_GREP_LINE ? line.slice(0, MAX_GREP_LINE) + '…' : line}`;
        if (request.tailLines !== undefined) {
            shown.push(entry);
            bytes += Buffer.byteLength(entry) + 1;
            while (shown.length > request.tailLines || (bytes > request.maxBytes && shown.length > 1)) {
                bytes -= Buffer.byteLength(shown.shift()!) + 1;
            }
        } else if (!full && bytes + Buffer.byteLength(entry) + 1 <= request.maxBytes) {
            shown.push(entry);
            bytes += Buffer.byteLength(entry) + 1;
        } else {
            full = true;
        }
    });
    return { text: shown.join('\n'), size, from: offset, next: size, matches, leftOut: shown.length < matches };
}
