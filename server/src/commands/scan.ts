import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { TestLines, type TestReport } from './testOutput/testLines.js';
import { writtenOffset, type LogGap } from './logGap.js';

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
const MAX_PENDING = 1024 * 1024;
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
    /** The failing tests, when the output is a known test runner's and some failed. */
    tests?: TestReport;
    /** The middle the running log left out to stay within its limit (logGap.ts), if it did. */
    dropped?: { bytes: number; lines: number };
}

/** Terminal colour and title codes (the grep worker strips them too). */
// eslint-disable-next-line no-control-regex
export const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g;

/** Text without terminal colour and title codes. */
export function stripAnsi(text: string): string {
    return text.replace(ANSI, '');
}

/** A line as shown to a model: colours gone, cut to MAX_SHOWN_LINE. */
export function shownLine(raw: string): string {
    const line = stripAnsi(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    return line.length > MAX_SHOWN_LINE ? line.slice(0, MAX_SHOWN_LINE) + '…' : line;
}

/**
 * Takes a command's output line by line and keeps only what a digest shows: memory stays bounded
 * whatever the output. Most lines are only tested and counted (no object, no copy): a flood's log
 * is scanned at its end, and the garbage of a line each would grow the server's memory.
 */
export class LineScanner {
    private readonly result: OutputScan = { lines: 0, bytes: 0, head: [], tail: [], matches: 0, groups: [], skippedBytes: 0 };
    /** The last TAIL_LINES lines as they came, a ring, with their numbers: `tailAt` is where the next goes. */
    private tailRing: string[] = [];
    private tailNumbers: number[] = [];
    private tailAt = 0;
    /** The line before this one and its number, for a group's context. */
    private previous?: string;
    private previousN = 0;
    private open?: NumberedLine[];
    private openUntil = 0;
    /** The indentation of the line that opened the group. */
    private openIndent = 0;
    private numbered = true;
    /** Lines before the skipped part, when there is one (the numbers of the lines after it are unknown). */
    private numberedLines = 0;

    /** The pattern over many lines at once: no match in a block means no line of it matches. */
    private readonly anyLine: RegExp;
    /** The output read as a test runner's, for the failing tests' names, places and messages. */
    private readonly tests = new TestLines();

    constructor(private readonly pattern: RegExp = DEFAULT_FAILURE_PATTERN) {
        this.anyLine = new RegExp(pattern.source, pattern.flags.replace(/[gym]/g, '') + 'm');
    }

    /**
     * Whole lines at once (joined by newlines, none at the end). A block with no match, while no
     * group is open, the first lines are taken and no test reader needs it, is only counted and its last lines kept: no
     * string or object per line, which a flood's log would make by the million.
     */
    block(text: string): void {
        if (this.open !== undefined || (this.numbered && this.result.head.length < HEAD_LINES) || text.includes('\x1b') || this.anyLine.test(text) || this.tests.wants(text)) {
            for (const line of text.split('\n')) {
                this.line(line);
            }
            return;
        }
        let count = 1;
        for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) {
            count++;
        }
        // The block's last lines, for the tail and the line before the next block.
        let end = text.length;
        const last: string[] = [];
        for (let i = 0; i < Math.min(count, TAIL_LINES); i++) {
            const start = text.lastIndexOf('\n', end - 1) + 1;
            last.push(text.slice(start, end));
            end = start - 1;
        }
        this.result.lines += count;
        for (let i = last.length - 1; i >= 0; i--) {
            this.keepInTail(last[i]!, this.result.lines - i);
        }
        this.previous = last[0];
        this.previousN = this.result.lines;
    }

    /** Lines the log left out (its marker stands for them): the lines after it keep the numbers they had. */
    jump(lines: number): void {
        this.result.lines += lines;
    }

    private keepInTail(raw: string, n: number): void {
        this.tailRing[this.tailAt] = raw;
        this.tailNumbers[this.tailAt] = n;
        this.tailAt = (this.tailAt + 1) % TAIL_LINES;
    }

    line(raw: string): void {
        const r = this.result;
        const n = ++r.lines;
        // Colour codes would hide a match (`^not ok`); cleaned only when there are some.
        const matched = this.pattern.test(raw.includes('\x1b') ? shownLine(raw) : raw);
        this.tests.line(raw.includes('\x1b') || raw.endsWith('\r') ? stripAnsi(raw.replace(/\r$/, '')) : raw);
        if (r.head.length < HEAD_LINES && this.numbered) {
            r.head.push(this.kept(raw, n, matched));
        }
        this.keepInTail(raw, n);
        if (matched) {
            r.matches++;
        }
        if (this.open) {
            // Lines indented below the failing one (a YAML block, an assertion's diff, a stack) belong to it, past AFTER.
            const under = indentOf(raw) > this.openIndent || raw.trim() === '';
            if ((matched || n <= this.openUntil || under) && this.open.length < MAX_GROUP_LINES) {
                this.open.push(this.kept(raw, n, matched));
                if (matched) {
                    this.openUntil = n + AFTER;
                }
            } else {
                this.open = undefined;
            }
        }
        if (!this.open && matched && r.groups.length < MAX_GROUPS) {
            this.open = this.previous !== undefined && BEFORE > 0 ? [this.kept(this.previous, this.previousN, false)] : [];
            this.open.push(this.kept(raw, n, true));
            r.groups.push(this.open);
            this.openUntil = n + AFTER;
            this.openIndent = indentOf(raw);
        }
        if (this.open && this.open.length >= MAX_GROUP_LINES) {
            this.open = undefined;
        }
        this.previous = raw;
        this.previousN = n;
    }

    /** Part of the output is not read: the lines after it get no numbers, and the tail starts over. */
    skip(bytes: number): void {
        this.result.skippedBytes += bytes;
        this.numbered = false;
        this.numberedLines = this.result.lines;
        this.open = undefined;
        this.previous = undefined;
        this.tailRing = [];
        this.tailNumbers = [];
        this.tailAt = 0;
    }

    done(bytes: number): OutputScan {
        const r = this.result;
        r.bytes = bytes;
        const tests = this.tests.report();
        if (tests) {
            r.tests = tests;
        }
        const count = this.tailRing.length;
        r.tail = [];
        for (let i = 0; i < count; i++) {
            const at = (this.tailAt + i) % count;
            r.tail.push(this.kept(this.tailRing[at]!, this.tailNumbers[at]!, false));
        }
        return r;
    }

    /** A line as a digest keeps it: shown (cleaned, cut), numbered unless after a skipped part. */
    private kept(raw: string, n: number, match: boolean): NumberedLine {
        const line: NumberedLine = this.numbered || n <= this.numberedLines ? { n, text: shownLine(raw) } : { text: shownLine(raw) };
        if (match) {
            line.match = true;
        }
        return line;
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
 * A log that left out its middle (`gap`) is counted and numbered as the command wrote it.
 */
export async function scanLog(path: string, pattern?: RegExp, gap?: LogGap): Promise<OutputScan> {
    const file = await open(path, 'r');
    try {
        const { size } = await file.stat();
        const scanner = new LineScanner(pattern);
        const buffer = Buffer.allocUnsafe(CHUNK);
        const searched = size > SCAN_MAX_BYTES ? SCAN_MAX_BYTES : size;
        // The marker ends a read of its own (it ends a line), and the lines after it are counted on from the numbers they had.
        const markerEnd = gap === undefined ? undefined : gap.at + gap.markerBytes;
        const first = markerEnd !== undefined && markerEnd <= searched ? markerEnd : searched;
        await readBlocks(file, buffer, 0, first, block => scanner.block(block));
        if (first === markerEnd) {
            scanner.jump(gap!.droppedLines - 1);
            await readBlocks(file, buffer, markerEnd, searched, block => scanner.block(block));
        }
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
        const scan = scanner.done(writtenOffset(size, gap));
        if (gap !== undefined) {
            scan.dropped = { bytes: gap.droppedBytes, lines: gap.droppedLines };
        }
        return scan;
    } finally {
        await file.close();
    }
}

type FileHandle = Awaited<ReturnType<typeof open>>;

/** Bytes [from, to) of the file decoded as UTF-8, a buffer at a time, each with the position read up to; a sequence cut at `to` comes last, as the decoder ends it. */
async function* decoded(file: FileHandle, buffer: Buffer, from: number, to: number): AsyncGenerator<[text: string, position: number]> {
    const decoder = new StringDecoder('utf8');
    let position = from;
    while (position < to) {
        const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, to - position), position);
        if (bytesRead === 0) {
            break;
        }
        position += bytesRead;
        yield [decoder.write(buffer.subarray(0, bytesRead)), position];
    }
    const end = decoder.end();
    if (end !== '') {
        yield [end, position];
    }
}

/** Calls `onBlock` with the whole lines of each chunk of bytes [from, to) (joined by newlines, none at the end); a last line without a newline counts too. */
async function readBlocks(file: FileHandle, buffer: Buffer, from: number, to: number, onBlock: (text: string) => void): Promise<void> {
    let rest = '';
    for await (const [chunk] of decoded(file, buffer, from, to)) {
        const text = rest + chunk;
        const newline = text.lastIndexOf('\n');
        if (newline < 0) {
            // A line that never ends is taken in pieces rather than held whole.
            rest = text.length > MAX_PENDING ? (onBlock(text), '') : text;
            continue;
        }
        rest = text.slice(newline + 1);
        onBlock(text.slice(0, newline));
    }
    if (rest !== '') {
        onBlock(rest);
    }
}

/** Calls `onLine` for each line of bytes [from, to) of the file (a last line without a newline counts too) until it returns false; the position read up to. */
export async function readLines(file: FileHandle, buffer: Buffer, from: number, to: number, onLine: (line: string) => boolean | void): Promise<number> {
    let rest = '';
    let read = from;
    for await (const [chunk, position] of decoded(file, buffer, from, to)) {
        read = position;
        const lines = (rest + chunk).split('\n');
        rest = lines.pop()!;
        for (const line of lines) {
            if (onLine(line) === false) {
                return position;
            }
        }
    }
    if (rest !== '') {
        onLine(rest);
    }
    return read;
}
