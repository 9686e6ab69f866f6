import type { WriteStream } from 'node:fs';

const MAX_TAIL_LINES = 200;
const MAX_TAIL_BYTES = 64 * 1024;
/** A line longer than this is cut, so one endless line cannot hold memory. */
const MAX_LINE = 16 * 1024;

/**
 * A command's output: every line (redacted) to its log file in full, the last lines kept in
 * memory, each line reported to `onLine`. Lines from stdout and stderr are kept apart until complete.
 */
export class CommandOutput {
    private readonly tail: string[] = [];
    private tailBytes = 0;
    private readonly partial = new Map<string, string>();
    lastLine = '';

    constructor(
        private readonly log: WriteStream,
        private readonly redact: (line: string) => string,
        private readonly onLine: (line: string) => void,
    ) {}

    write(stream: string, chunk: string): void {
        const text = (this.partial.get(stream) ?? '') + chunk;
        const lines = text.split('\n');
        let rest = lines.pop()!;
        for (const line of lines) {
            this.line(line);
        }
        if (rest.length > MAX_LINE) {
            this.line(rest);
            rest = '';
        }
        this.partial.set(stream, rest);
    }

    /** Flushes unterminated lines; returns once the log file is written. */
    async end(): Promise<void> {
        for (const rest of this.partial.values()) {
            if (rest) {
                this.line(rest);
            }
        }
        this.partial.clear();
        await new Promise<void>(resolve => this.log.end(resolve));
    }

    text(): string {
        return this.tail.join('\n');
    }

    private line(raw: string): void {
        const line = this.redact(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
        this.log.write(line + '\n');
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
