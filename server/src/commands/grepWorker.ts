import { Worker } from 'node:worker_threads';
import { ANSI } from './scan.js';

/**
 * read_output's grep runs here, off the main thread and against a deadline. The pattern is the
 * caller's, and a JavaScript regular expression can backtrack for minutes on a short line
 * (`(a+)+$` on 29 characters froze every client of the server for 107 s when it ran on the main
 * thread). A worker can be ended mid-match; the main thread never runs the pattern.
 */

/** How long one grep may search before its worker is ended: a log within the commands log limit is searched in well under this. */
export const GREP_DEADLINE_MS = 1000;
/** Workers searching at once, all callers together (each holds a core while it backtracks). */
const MAX_RUNNING = 2;
/** Searches one caller may have waiting or running; more are refused at once, so no caller fills the line. */
const MAX_PER_CALLER = 2;
/** The worker's heap: enough for a read buffer and the answer's lines. */
const WORKER_HEAP_MB = 32;

export interface GrepJob {
    path: string;
    /** Byte offset to search from, and the log's size when the search began (the end). */
    offset: number;
    size: number;
    pattern: RegExp;
    tailLines?: number;
    /** Lines shown before and after each match (grep -C); 0 or undefined: none. Not with tailLines. */
    context?: number;
    maxBytes: number;
    /** Lines are cut here before the pattern sees them. */
    maxLine: number;
    /** The log's marker line (a file line number) and how many lines more than itself it stands for: the lines after it are numbered as written (logGap.ts). */
    gap?: { line: number; skipped: number };
}

export type GrepOutcome =
    | { done: true; shown: string[]; matches: number }
    /** The deadline passed: `line` is the line (numbered from the log's start) the pattern was on, 0 if none yet. */
    | { done: false; line: number };

/**
 * The worker's code, as text: a worker made from a string runs the same in the bundle, under tsx
 * and in a library user's build, where a worker file beside the bundle may not exist. It reads
 * the file itself (so a large log is not copied across), and writes the line it is on into
 * shared memory, which the main thread reads once it has ended a worker at the deadline.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { openSync, readSync, closeSync } = require('node:fs');
const { StringDecoder } = require('node:string_decoder');
const { path, offset, size, source, flags, tailLines, context, maxBytes, maxLine, ansi, progress, gapLine, gapSkipped } = workerData;
const at = new Int32Array(progress);
const pattern = new RegExp(source, flags);
const colours = new RegExp(ansi, 'g');
const shown = [];
const before = [];
let bytes = 0, matches = 0, n = 0, full = false, after = 0, last = 0;
function clean(raw) {
    const line = (raw.endsWith('\\r') ? raw.slice(0, -1) : raw).replace(colours, '');
    return line.length > maxLine ? line.slice(0, maxLine) + '\\u2026' : line;
}
function emit(entry) {
    const length = Buffer.byteLength(entry) + 1;
    if (tailLines !== undefined) {
        shown.push(entry);
        bytes += length;
        while (shown.length > tailLines || (bytes > maxBytes && shown.length > 1)) bytes -= Buffer.byteLength(shown.shift()) + 1;
        return true;
    }
    if (!full && bytes + length <= maxBytes) {
        shown.push(entry);
        bytes += length;
        return true;
    }
    full = true;
    return false;
}
// Numbers as grep -n prints them: "12: " a match, "11- " a line around one, "--" between groups.
function show(number, line, match) {
    if (context > 0 && last > 0 && number > last + 1) emit('--');
    last = number;
    return emit(number + (match ? ': ' : '- ') + line);
}
// n counts the file's lines; a line after the marker is numbered as the command wrote it.
function onLine(raw) {
    n++;
    if (n === gapLine + 1) n += gapSkipped;
    Atomics.store(at, 0, n);
    const cut = (raw.endsWith('\\r') ? raw.slice(0, -1) : raw).replace(colours, '').slice(0, maxLine + 1);
    pattern.lastIndex = 0;
    if (!pattern.test(cut)) {
        if (after > 0) {
            after--;
            show(n, clean(raw), false);
        } else if (context > 0) {
            before.push([n, raw]);
            if (before.length > context) before.shift();
        }
        return;
    }
    matches++;
    if (full) return;
    for (const [number, text] of before) show(number, clean(text), false);
    before.length = 0;
    show(n, clean(raw), true);
    after = context || 0;
}
const fd = openSync(path, 'r');
try {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    // Lines before the offset are counted, not searched: every number is from the log's start.
    let position = 0;
    while (position < offset) {
        const read = readSync(fd, buffer, 0, Math.min(buffer.length, offset - position), position);
        if (read === 0) break;
        const chunk = buffer.subarray(0, read);
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) if (++n === gapLine + 1) n += gapSkipped;
        position += read;
    }
    const decoder = new StringDecoder('utf8');
    let rest = '';
    while (position < size) {
        const read = readSync(fd, buffer, 0, Math.min(buffer.length, size - position), position);
        if (read === 0) break;
        position += read;
        const lines = (rest + decoder.write(buffer.subarray(0, read))).split('\\n');
        rest = lines.pop();
        for (const line of lines) onLine(line);
    }
    rest += decoder.end();
    if (rest !== '') onLine(rest);
} finally {
    closeSync(fd);
}
parentPort.postMessage({ shown, matches });
`;

/** A caller asked for more searches at once than it may have: the message is for the model. */
export class GrepBusy extends Error {}

interface Waiting {
    caller: string;
    start(): void;
}

/** Runs greps in workers: at most MAX_RUNNING at once, first come first served, at most MAX_PER_CALLER per caller. */
export class GrepRunner {
    private running = 0;
    private readonly line: Waiting[] = [];
    private readonly perCaller = new Map<string, number>();

    constructor(readonly deadlineMs = GREP_DEADLINE_MS) {}

    /** Searches for `caller` (the key of the client asking); rejects at once when that caller already has MAX_PER_CALLER searches going. */
    async grep(caller: string, job: GrepJob): Promise<GrepOutcome> {
        const mine = this.perCaller.get(caller) ?? 0;
        if (mine >= MAX_PER_CALLER) {
            throw new GrepBusy(`${mine} grep searches of yours are still running; wait for their answers, then search again`);
        }
        this.perCaller.set(caller, mine + 1);
        try {
            await this.turn(caller);
            try {
                return await this.search(job);
            } finally {
                this.running--;
                this.next();
            }
        } finally {
            const left = this.perCaller.get(caller)! - 1;
            if (left === 0) {
                this.perCaller.delete(caller);
            } else {
                this.perCaller.set(caller, left);
            }
        }
    }

    private turn(caller: string): Promise<void> {
        if (this.running < MAX_RUNNING && this.line.length === 0) {
            this.running++;
            return Promise.resolve();
        }
        return new Promise(start => this.line.push({ caller, start }));
    }

    private next(): void {
        while (this.running < MAX_RUNNING && this.line.length > 0) {
            this.running++;
            this.line.shift()!.start();
        }
    }

    private search(job: GrepJob): Promise<GrepOutcome> {
        const progress = new SharedArrayBuffer(4);
        const worker = new Worker(WORKER_SOURCE, {
            eval: true,
            workerData: {
                path: job.path,
                offset: job.offset,
                size: job.size,
                source: job.pattern.source,
                flags: job.pattern.flags,
                tailLines: job.tailLines,
                context: job.context ?? 0,
                maxBytes: job.maxBytes,
                maxLine: job.maxLine,
                gapLine: job.gap?.line ?? -1,
                gapSkipped: job.gap?.skipped ?? 0,
                ansi: ANSI.source,
                progress,
            },
            resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
            // The worker needs none of the server's environment (its tokens among them).
            env: {},
            stdout: true,
            stderr: true,
        });
        return new Promise<GrepOutcome>((resolve, reject) => {
            let settled = false;
            let deadline: NodeJS.Timeout | undefined;
            const settle = (outcome: GrepOutcome | Error) => {
                if (settled) {
                    return;
                }
                settled = true;
                clearTimeout(deadline);
                void worker.terminate();
                if (outcome instanceof Error) {
                    reject(outcome);
                } else {
                    resolve(outcome);
                }
            };
            // Timed from the worker's start, not its creation: a loaded machine may take a while to start a thread, and that is not the pattern's time.
            worker.once('online', () => {
                deadline = setTimeout(() => settle({ done: false, line: Atomics.load(new Int32Array(progress), 0) }), this.deadlineMs);
            });
            worker.once('message', (answer: { shown: string[]; matches: number }) => settle({ done: true, ...answer }));
            worker.once('error', err => settle(err));
            worker.once('exit', code => settle(new Error(`the search stopped unexpectedly (exit code ${code})`)));
        });
    }
}
