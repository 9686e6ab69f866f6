import { StringDecoder } from 'node:string_decoder';
import { redactor } from './secrets.js';

const NEWLINE = Buffer.from('\n');

const MAX_TAIL_LINES = 200;
const MAX_TAIL_BYTES = 64 * 1024;
/** A line longer than this is cut, so one endless line cannot hold memory. */
const MAX_LINE = 16 * 1024;

/** Where a command's output lines go: its log file (runLog.ts). */
export interface LogSink {
    /** False: wait for `drained` before writing more. */
    write(chunk: Buffer | string): boolean;
    drained(): Promise<void>;
    /** Writes what is left and closes. */
    end(): Promise<void>;
}

/**
 * A command's output: every line to its log file in full (secrets as `***`), the last lines kept
 * in memory, each line reported to `onLine`. Lines from stdout and stderr are kept apart until
 * complete. Output is kept as bytes until a line is complete; the log gets the output's own bytes
 * (line endings included) unless a secret is in them, and only the lines that matter are decoded.
 */
export class CommandOutput {
    private readonly tail: string[] = [];
    private tailBytes = 0;
    /** Each stream's bytes after its last newline. */
    private readonly partial = new Map<string, Buffer[]>();
    private readonly redact: (text: string) => string;
    private readonly secretBytes: Buffer[];
    private readonly seam: number;
    private readonly needleBytes: Buffer[];
    private readonly needleSeam: number;
    lastLine = '';

    constructor(
        private readonly log: LogSink,
        /** The values to hide. */
        secrets: readonly string[],
        private readonly onLine: (line: string) => void,
        /**
         * Whether `onLine` needs every line (a progress pattern reads them). Otherwise only the lines
         * that can still be in the tail are decoded: the log file gets every byte anyway, and a
         * flood of output makes a third of the garbage.
         */
        private readonly everyLine = true,
        /**
         * Strings some lines `onLine` needs hold (a test runner's pass and fail marks): output that
         * holds one is decoded whole even when not every line is needed, so every test is counted.
         */
        private readonly needles: readonly string[] = [],
    ) {
        this.redact = redactor(secrets);
        this.secretBytes = secrets.map(secret => Buffer.from(secret));
        this.seam = seamOf(this.secretBytes);
        this.needleBytes = needles.map(needle => Buffer.from(needle));
        this.needleSeam = seamOf(this.needleBytes);
    }

    /**
     * Takes a chunk of `stream`'s output; its complete lines go to the log at once. False means the
     * log file is behind, and the caller should pause the stream until it drains, so a command that
     * writes faster than the disk cannot fill the server's memory.
     */
    write(stream: string, chunk: Buffer): boolean {
        const pending = this.partial.get(stream) ?? [];
        const restBytes = pending.reduce((sum, piece) => sum + piece.length, 0) + chunk.length - (chunk.lastIndexOf(0x0a) + 1);
        if (restBytes > MAX_LINE) {
            // One endless line is cut, so it cannot hold memory.
            return this.cut(stream, Buffer.concat([...pending, chunk]));
        }
        const end = chunk.lastIndexOf(0x0a) + 1;
        if (end === 0) {
            pending.push(chunk);
            this.partial.set(stream, pending);
            return true;
        }
        this.partial.set(stream, end < chunk.length ? [chunk.subarray(end)] : []);
        return this.complete([...pending, chunk.subarray(0, end)]);
    }

    /**
     * Ends a line too long to keep whole. The cut leaves out the last bytes, which may begin a
     * secret the next read completes, and falls before any secret it would split, so each secret
     * is seen whole on one side of it.
     */
    private cut(stream: string, line: Buffer): boolean {
        let at = line.length - this.seam;
        for (let moved = true; moved; ) {
            moved = false;
            for (const secret of this.secretBytes) {
                const across = line.indexOf(secret, Math.max(0, at - secret.length + 1));
                if (across >= 0 && across < at) {
                    at = across;
                    moved = true;
                }
            }
        }
        if (at <= 0) {
            at = line.length;
        }
        this.partial.set(stream, at < line.length ? [line.subarray(at)] : []);
        return this.complete([line.subarray(0, at), NEWLINE]);
    }

    /** Resolves once the log file has taken what it buffered (a paused stream may resume). */
    drained(): Promise<void> {
        return this.log.drained();
    }

    /** Flushes unterminated lines; returns once the log file is written. */
    async end(): Promise<void> {
        for (const pending of this.partial.values()) {
            if (pending.some(piece => piece.length > 0)) {
                this.complete([...pending, NEWLINE]);
            }
        }
        this.partial.clear();
        await this.log.end();
    }

    text(): string {
        return this.tail.join('\n');
    }

    /** Whole lines (`pieces` end with a newline) to the log, the tail and `onLine`. */
    private complete(pieces: Buffer[]): boolean {
        if (this.hasSecret(pieces)) {
            const shown = this.redact(decode(pieces));
            // Redacted text has no bytes to search: a needle anywhere in it makes every line count.
            this.feed(shown, this.everyLine || this.needles.some(needle => shown.includes(needle)));
            return this.log.write(shown);
        }
        // Only the part that can still be in the tail is decoded (a newline never sits inside a UTF-8 sequence),
        // unless the part before holds a needle.
        const last = pieces.length - 1;
        let from = this.everyLine ? 0 : tailStart(pieces[last]!);
        if (from > 0 && holdsAny([...pieces.slice(0, last), pieces[last]!.subarray(0, from)], this.needleBytes, this.needleSeam)) {
            from = 0;
        }
        this.feed(from > 0 ? pieces[last]!.toString('utf8', from) : decode(pieces), true);
        // The pieces, not a copy: the log gets the chunk itself (and writes what waits in one call).
        let ok = true;
        for (const piece of pieces) {
            ok = this.log.write(piece) && ok;
        }
        return ok;
    }

    /** Whether a secret's bytes are in the pieces, or across the seams between them (a piece may be shorter than a secret). */
    private hasSecret(pieces: Buffer[]): boolean {
        return holdsAny(pieces, this.secretBytes, this.seam);
    }

    /** The lines of `text` (whole lines, each ending in a newline) to the tail and `onLine`: `all`, or those that can stay in the tail. */
    private feed(text: string, all: boolean): void {
        if (text === '') {
            return;
        }
        const from = all ? 0 : tailStartOf(text);
        for (const line of text.slice(from, -1).split('\n')) {
            this.line(line);
        }
    }

    /** Keeps a (redacted) line in the tail and reports it. */
    private line(raw: string): void {
        const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
        const kept = line.length > MAX_LINE ? line.slice(0, MAX_LINE) + '…' : line;
        this.tail.push(kept);
        this.tailBytes += kept.length + 1;
        while (this.tail.length > MAX_TAIL_LINES || this.tailBytes > MAX_TAIL_BYTES) {
            this.tailBytes -= this.tail.shift()!.length + 1;
        }
        if (kept.trim()) {
            this.lastLine = kept;
        }
        this.onLine(kept);
    }
}

/** How many bytes of the pieces before a seam a search must keep: a needle can begin there and end after it. */
function seamOf(needles: Buffer[]): number {
    return Math.max(0, ...needles.map(needle => needle.length - 1));
}

/** Whether one of `needles` is in the pieces, or across the seams between them (a piece may be shorter than a needle). */
function holdsAny(pieces: Buffer[], needles: Buffer[], seam: number): boolean {
    if (needles.length === 0) {
        return false;
    }
    const found = (bytes: Buffer) => needles.some(needle => bytes.includes(needle));
    // The last `seam` bytes before each piece, whichever pieces they came from.
    let before: Buffer = Buffer.alloc(0);
    for (const piece of pieces) {
        if (found(piece) || (before.length > 0 && found(Buffer.concat([before, piece.subarray(0, seam)])))) {
            return true;
        }
        before = piece.length >= seam ? piece.subarray(piece.length - seam) : Buffer.concat([before, piece]).subarray(-seam);
    }
    return false;
}

function decode(pieces: Buffer[]): string {
    const decoder = new StringDecoder('utf8');
    return pieces.map(piece => decoder.write(piece)).join('') + decoder.end();
}

/**
 * Where the part of `chunk` that can still be in the tail starts: just after the newline before its
 * last MAX_TAIL_LINES complete lines (or its last MAX_TAIL_BYTES); 0 when that is all of it.
 */
function tailStart(chunk: Buffer): number {
    let newline = chunk.lastIndexOf(0x0a, chunk.length - 2);
    for (let lines = 1; newline > 0 && lines < MAX_TAIL_LINES && chunk.length - newline < MAX_TAIL_BYTES; lines++) {
        newline = chunk.lastIndexOf(0x0a, newline - 1);
    }
    return newline > 0 ? newline + 1 : 0;
}

/** tailStart for whole lines of text (ending in a newline). */
function tailStartOf(text: string): number {
    let newline = text.lastIndexOf('\n', text.length - 2);
    for (let lines = 1; newline >= 0 && lines < MAX_TAIL_LINES && text.length - newline < MAX_TAIL_BYTES; lines++) {
        newline = text.lastIndexOf('\n', newline - 1);
    }
    return newline + 1;
}

/** The percentage a progress pattern finds in a line: its named group `percent`, or first group, as `n` or `n/m`. */
export function percentOf(pattern: RegExp | undefined, line: string): number | undefined {
    const match = pattern?.exec(line);
    if (!match) {
        return undefined;
    }
    const text = match.groups?.percent ?? match[1] ?? '';
    const ratio = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
    const value = ratio ? (Number(ratio[1]) / Number(ratio[2])) * 100 : Number(text);
    return Number.isFinite(value) ? Math.max(0, Math.min(100, value)) : undefined;
}
