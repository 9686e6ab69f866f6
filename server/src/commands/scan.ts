import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

/**
 * Lines that say a test or step failed, in the common runners' words: TAP `not ok` and `# fail N`,
 * mocha's `N failing`, `N tests failed`, jest/vitest `FAIL` and `✕`/`×`, node:test `✖`, `✗`/`✘`,
 * `Error:` (and `TypeError:`…), `AssertionError`. A command's own `failurePattern` replaces it.
 */
export const DEFAULT_FAILURE_PATTERN = /^\s*not ok\b|\bFAIL(?:ED|URE)?\b|[✗✘✖✕×]|\b[1-9]\d* (?:tests? )?(?:failing|failed)\b|^# fail [1-9]|\b(?:[A-Z][A-Za-z]*)?Error\b:|AssertionError/;

export const HEAD_LINES = 8;
export const TAIL_LINES = 25;
/** Lines kept before and after a matching line (and after, any indented below it). */
const BEFORE = 1;
const AFTER = 8;
/** A run of matches (every line says "Error:") is cut here, so one group cannot take the whole budget. */
const MAX_GROUP_LINES = 24;
export const MAX_GROUPS = 40;
/** Longer lines are shown cut, with an ellipsis. */
export const MAX_SHOWN_LINE = 300;
/** Beyond this, a log is searched for failures in its first part only, and its tail read from the end. */
export const SCAN_MAX_BYTES = 32 * 1024 * 1024;
const TAIL_READ_BYTES = 64 * 1024;
const CHUNK = 64 * 1024;

/** A line of output with its 1-based number in the log (absent after a part that was not read). */
export interface NumberedLine {
    n?: number;
    text: string;
    /** It matched the failure pattern (the others in a group are context). */
    match?: boolean;
}

/** What one pass over a command's output found: its first and last lines and the lines that matter. */
export interface OutputScan {
    /** Lines read (all of them unless `skippedBytes`). */
    lines: number;
    bytes: number;
    head: NumberedLine[];
    tail: NumberedLine[];
    /** Lines that matched the failure pattern (all of them, counted). */
    matches: number;
    /** The first matches with their context, overlapping ones merged. */
    groups: NumberedLine[][];
    /** Bytes in the middle of a huge log that were not searched. */
    skippedBytes: number;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g;

/** A line as shown to a model: colours gone, cut to MAX_SHOWN_LINE. */
export function shownLine(raw: string): string {
    const line = (raw.endsWith('\r') ? raw.slice(0, -1) : raw).replace(ANSI, '');
    return line.length > MAX_SHOWN_LINE ? line.slice(0, MAX_SHOWN_LINE) + '…' : line;
}

/** Takes a command's output line by line and keeps only what a digest shows: memory stays bounded whatever the output. */
export class LineScanner {
    private readonly result: OutputScan = { lines: 0, bytes: 0, head: [], tail: [], matches: 0, groups: [], skippedBytes: 0 };
    private before: NumberedLine[] = [];
    private open?: NumberedLine[];
    private openUntil = 0;
    /** The indentation of the line that opened the group. */
    private openIndent = 0;
    private numbered = true;

    constructor(private readonly pattern: RegExp = DEFAULT_FAILURE_PATTERN) {}

    line(raw: string): void {
        const r = this.result;
        const n = ++r.lines;
        const text = shownLine(raw);
        const line: NumberedLine = this.numbered ? { n, text } : { text };
        if (r.head.length < HEAD_LINES && this.numbered) {
            r.head.push(line);
        }
        r.tail.push(line);
        if (r.tail.length > TAIL_LINES) {
            r.tail.shift();
        }
        const matched = this.pattern.test(text);
        if (matched) {
            r.matches++;
            line.match = true;
        }
        // Lines indented below the failing one (a YAML block, an assertion's diff, a stack) belong to it, past AFTER.
        const under = this.open !== undefined && (indentOf(text) > this.openIndent || text.trim() === '');
        if (this.open && (matched || n <= this.openUntil || under) && this.open.length < MAX_GROUP_LINES) {
            this.open.push(line);
            if (matched) {
                this.openUntil = n + AFTER;
            }
        } else if (matched && r.groups.length < MAX_GROUPS) {
            this.open = [...this.before, line];
            r.groups.push(this.open);
            this.openUntil = n + AFTER;
            this.openIndent = indentOf(text);
        } else if (this.open && n > this.openUntil) {
            this.open = undefined;
        }
        this.before.push(line);
        if (this.before.length > BEFORE) {
            this.before.shift();
        }
        if (this.open && this.open.length >= MAX_GROUP_LINES) {
            this.open = undefined;
            this.before = [];
        }
    }

    /** Part of the output is not read: the lines after it get no numbers, and the tail starts over. */
    skip(bytes: number): void {
        this.result.skippedBytes += bytes;
        this.numbered = false;
        this.open = undefined;
        this.before = [];
        this.result.tail = [];
    }

    done(bytes: number): OutputScan {
        this.result.bytes = bytes;
        return this.result;
    }
}

function indentOf(text: string): number {
    return text.length - text.trimStart().length;
}

/** Scans text made of whole lines (the in-memory tail, when the log cannot be read). */
export function scanText(text: string, pattern?: RegExp): OutputScan {
    const scanner = new LineScanner(pattern);
    const lines = text === '' ? [] : text.split('\n');
    if (lines.at(-1) === '') {
        lines.pop();
    }
    for (const line of lines) {
        scanner.line(line);
    }
    return scanner.done(Buffer.byteLength(text));
}

/**
 * One pass over a log file, a chunk at a time. A log over SCAN_MAX_BYTES is searched in its first
 * SCAN_MAX_BYTES and its tail read from the end: a 2 GB flood costs a bounded read, not a minute.
 */
export async function scanLog(path: string, pattern?: RegExp): Promise<OutputScan> {
    const file = await open(path, 'r');
    try {
        const { size } = await file.stat();
        const scanner = new LineScanner(pattern);
        const buffer = Buffer.allocUnsafe(CHUNK);
        const searched = size > SCAN_MAX_BYTES ? SCAN_MAX_BYTES : size;
        await readLines(file, buffer, 0, searched, line => scanner.line(line));
        if (searched < size) {
            const from = Math.max(searched, size - TAIL_READ_BYTES);
            scanner.skip(from - searched);
            let first = true;
            // The first line read from the middle is most likely a piece of one: it is dropped.
            await readLines(file, buffer, from, size, line => {
                if (!first) {
                    scanner.line(line);
                }
                first = false;
            });
        }
        return scanner.done(size);
    } finally {
        await file.close();
    }
}

type FileHandle = Awaited<ReturnType<typeof open>>;

/** Calls `onLine` for each line of bytes [from, to) of the file; a last line without a newline counts too. */
export async function readLines(file: FileHandle, buffer: Buffer, from: number, to: number, onLine: (line: string) => boolean | void): Promise<number> {
    const decoder = new StringDecoder('utf8');
    let rest = '';
    let position = from;
    while (position < to) {
        const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, to - position), position);
        if (bytesRead === 0) {
            break;
        }
        position += bytesRead;
        const text = rest + decoder.write(buffer.subarray(0, bytesRead));
        const lines = text.split('\n');
        rest = lines.pop()!;
        for (const line of lines) {
            if (onLine(line) === false) {
                return position;
            }
        }
    }
    rest += decoder.end();
    if (rest !== '') {
        onLine(rest);
    }
    return position;
}
