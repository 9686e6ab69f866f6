import type { WriteStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

const NEWLINE = Buffer.from('\n');

const MAX_TAIL_LINES = 200;
const MAX_TAIL_BYTES = 64 * 1024;
/** A line longer than this is cut, so one endless line cannot hold memory. */
const MAX_LINE = 16 * 1024;

/**
 * A command's output: every line (redacted) to its log file in full, the last lines kept in
 * memory, each line reported to `onLine`. Lines from stdout and stderr are kept apart until
 * complete. With nothing to redact the log gets the output's own bytes (CRLF and all).
 */
export class CommandOutput {
    private readonly tail: string[] = [];
    private tailBytes = 0;
    private readonly partial = new Map<string, string>();
    private readonly partialBytes = new Map<string, Buffer[]>();
    private readonly decoders = new Map<string, StringDecoder>();
    lastLine = '';

    constructor(
        private readonly log: WriteStream,
        /** Hides secrets in each line; absent when there is nothing to hide. */
        private readonly redact: ((line: string) => string) | undefined,
        private readonly onLine: (line: string) => void,
        /**
         * Whether `onLine` needs every line (a progress pattern reads them). Otherwise, with nothing
         * to redact, only the lines that can still be in the tail are decoded: the log file gets
         * every byte anyway, and a flood of output makes a third of the garbage.
         */
        private readonly everyLine = true,
    ) {}

    /**
     * Takes a chunk of `stream`'s output. All its complete lines go to the log in one write: false
     * means the log file is behind, and the caller should pause the stream until it drains, so a
     * command that writes faster than the disk cannot fill the server's memory.
     */
    write(stream: string, chunk: Buffer): boolean {
        let decoder = this.decoders.get(stream);
        if (!decoder) {
            decoder = new StringDecoder('utf8');
            this.decoders.set(stream, decoder);
        }
        const from = this.redact || this.everyLine ? 0 : tailStart(chunk);
        let text: string;
        if (from > 0) {
            // A newline is never inside a UTF-8 sequence: decoding restarts cleanly after it.
            decoder.end();
            decoder = new StringDecoder('utf8');
            this.decoders.set(stream, decoder);
            text = decoder.write(chunk.subarray(from));
        } else {
            text = (this.partial.get(stream) ?? '') + decoder.write(chunk);
        }
        const lines = text.split('\n');
        let rest = lines.pop()!;
        const cut = rest.length > MAX_LINE;
        if (cut) {
            lines.push(rest);
            rest = '';
        }
        this.partial.set(stream, rest);
        if (this.redact) {
            return lines.length === 0 || this.log.write(lines.map(line => this.line(line)).join(''));
        }
        for (const line of lines) {
            this.line(line);
        }
        // Nothing to redact: the log gets the bytes as they came, complete lines only (so stdout's and
        // stderr's lines stay whole), with no string made for it.
        const pending = this.partialBytes.get(stream) ?? [];
        const end = cut ? chunk.length : chunk.lastIndexOf(0x0a) + 1;
        if (end === 0) {
            pending.push(chunk);
            this.partialBytes.set(stream, pending);
            return true;
        }
        this.partialBytes.set(stream, end < chunk.length ? [chunk.subarray(end)] : []);
        // Pieces, not a concatenation: no copy of the chunk is made for the log.
        this.log.cork();
        for (const piece of pending) {
            this.log.write(piece);
        }
        const ok = this.log.write(chunk.subarray(0, end));
        process.nextTick(() => this.log.uncork());
        return cut ? this.log.write(NEWLINE) && ok : ok;
    }

    /** Resolves once the log file has taken what it buffered (a paused stream may resume). */
    drained(): Promise<void> {
        return new Promise(resolve => this.log.once('drain', resolve));
    }

    /** Flushes unterminated lines; returns once the log file is written. */
    async end(): Promise<void> {
        for (const [stream, rest] of this.partial) {
            const text = rest + (this.decoders.get(stream)?.end() ?? '');
            if (text) {
                const line = this.line(text);
                this.log.write(this.redact ? line : Buffer.concat([...(this.partialBytes.get(stream) ?? []), NEWLINE]));
            }
        }
        this.partial.clear();
        this.partialBytes.clear();
        await new Promise<void>(resolve => this.log.end(resolve));
    }

    text(): string {
        return this.tail.join('\n');
    }

    /** Keeps the line in the tail, reports it, and returns it (redacted) as the log gets it. */
    private line(raw: string): string {
        const plain = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
        const line = this.redact ? this.redact(plain) : plain;
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
        return line + '\n';
    }
}

/**
 * Where the part of `chunk` that can still be in the tail starts: just after the newline before its
 * last MAX_TAIL_LINES complete lines (or its last MAX_TAIL_BYTES); 0 when that is all of it.
 */
function tailStart(chunk: Buffer): number {
    let newline = chunk.lastIndexOf(0x0a);
    for (let lines = 0; newline > 0 && lines < MAX_TAIL_LINES && chunk.length - newline < MAX_TAIL_BYTES; lines++) {
        newline = chunk.lastIndexOf(0x0a, newline - 1);
    }
    return newline > 0 ? newline + 1 : 0;
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
