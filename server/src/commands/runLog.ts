import { open, type FileHandle } from 'node:fs/promises';
import { kb } from './digest.js';
import type { LogGap, LogGuard } from './logGap.js';
import { lineStartFrom, moveDown, withCopyBuffer } from './logMove.js';

/** The log a RunLog writes: where, the guard its reads go through, and the middle it left out (OutputLog's fields). */
export interface RunLogFile {
    readonly path: string;
    readonly guard: LogGuard;
    gap?: LogGap;
}

/** What waits to be written before `write` asks the caller to wait for `drained`. */
const HIGH_WATER = 64 * 1024;
/**
 * The marker line's length, its newline included: always the same, padded with spaces, so the
 * latest lines can be moved in place before the counts it gives are known.
 */
export const MARKER_BYTES = 256;

/**
 * A command's log as the server writes it, held within `limit` bytes while the command runs. The
 * command never writes here itself: it appends to its capture file, and the server copies what it
 * reads there into this, secrets hidden (capture.ts); so the server is this file's only writer and
 * can bound it while the command goes on appending elsewhere. Once a write would take the file past
 * the limit, the part after its first quarter and before its latest quarter is left out and one
 * marker line takes its place, saying how many lines and bytes went; the counts go with the log
 * (logGap.ts), so readers number lines and count bytes as the command wrote them.
 *
 * It is done in place, at that write, while no read is under way (LogGuard), rather than by
 * writing a new file and renaming it over the log: only the latest quarter moves (a new file would
 * copy the first quarter again each time), a flood costs one copy of a quarter of the limit per half
 * limit written, the path never goes missing nor changes file under a task that points at it, and a
 * reader cannot hold an old file open under the new counts. Writes wait meanwhile; the capture file
 * takes what the command writes.
 */
export class RunLog {
    /** Bytes in the file. */
    private fileBytes = 0;
    /** Lines of the output as written that have reached the file. */
    private fileLines = 0;
    /** The last line end within the first quarter of the limit, and the lines up to it: where the kept first lines end. */
    private headEnd = 0;
    private headLines = 0;
    private queue: Buffer[] = [];
    private queued = 0;
    private pumping?: Promise<void>;
    private waiters: (() => void)[] = [];
    private ended = false;
    /** Why the log could not be written (a full disk): later output is dropped. */
    error?: NodeJS.ErrnoException;

    private constructor(
        private readonly file: FileHandle,
        private readonly entry: RunLogFile,
        readonly limit: number,
        private readonly onError: (err: NodeJS.ErrnoException) => void,
    ) {}

    /** Creates the log file (0600); rejects with what the open threw. */
    static async open(entry: RunLogFile, limit: number, onError: (err: NodeJS.ErrnoException) => void): Promise<RunLog> {
        return new RunLog(await open(entry.path, 'w+', 0o600), entry, limit, onError);
    }

    /** Takes output (whole lines); false asks the caller to wait for `drained` before writing more. */
    write(chunk: Buffer | string): boolean {
        if (this.error || this.ended) {
            return true;
        }
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        if (bytes.length > 0) {
            this.queue.push(bytes);
            this.queued += bytes.length;
            this.pumping ??= this.pump();
        }
        return this.queued < HIGH_WATER;
    }

    /** Resolves once what waits to be written is under the high-water mark again (or the log failed). */
    drained(): Promise<void> {
        if (this.queued < HIGH_WATER || this.error) {
            return Promise.resolve();
        }
        return new Promise(resolve => this.waiters.push(resolve));
    }

    /** Writes what is left and closes the file. */
    async end(): Promise<void> {
        this.ended = true;
        await this.pumping;
        await this.file.close().catch(() => undefined);
    }

    private async pump(): Promise<void> {
        try {
            while (this.queue.length > 0 && !this.error) {
                const batch = this.queue;
                const bytes = this.queued;
                this.queue = [];
                this.queued = 0;
                this.wake();
                if (this.fileBytes + bytes > this.limit) {
                    await this.entry.guard.rewrite(() => this.leaveOutMiddle());
                }
                const { bytesWritten } = await this.file.writev(batch, this.fileBytes);
                if (bytesWritten < bytes) {
                    throw Object.assign(new Error('short write: the disk is full'), { code: 'ENOSPC' });
                }
                this.counted(batch);
                this.fileBytes += bytes;
            }
        } catch (err) {
            this.error = err as NodeJS.ErrnoException;
            this.queue = [];
            this.queued = 0;
            this.onError(this.error);
        } finally {
            this.pumping = undefined;
            this.wake();
        }
    }

    private wake(): void {
        if (this.queued < HIGH_WATER || this.error) {
            this.waiters.splice(0).forEach(resolve => resolve());
        }
    }

    /** Counts the lines of what is written at the end of the file, noting the last line end within the first quarter. */
    private counted(batch: Buffer[]): void {
        const headBudget = Math.floor(this.limit / 4);
        let position = this.writtenBytes;
        for (const bytes of batch) {
            for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, at + 1)) {
                this.fileLines++;
                if (position + at + 1 <= headBudget) {
                    this.headEnd = position + at + 1;
                    this.headLines = this.fileLines;
                }
            }
            position += bytes.length;
        }
    }

    /** The output as written up to the end of the file (the file's bytes, less the marker, plus what it stands for). */
    private get writtenBytes(): number {
        const gap = this.entry.gap;
        return gap === undefined ? this.fileBytes : this.fileBytes - gap.markerBytes + gap.droppedBytes;
    }

    /**
     * Keeps the first lines (up to a quarter of the limit) and the latest (about a quarter), and
     * puts the marker between them: the latest lines move down to just after the marker's place,
     * the marker is written with the counts, and the file is cut after them.
     */
    private leaveOutMiddle(): Promise<void> {
        return withCopyBuffer(buffer => this.leaveOutMiddleWith(buffer));
    }

    private async leaveOutMiddleWith(buffer: Buffer): Promise<void> {
        const gap = this.entry.gap;
        const at = gap?.at ?? this.headEnd;
        const headLines = gap?.headLines ?? this.headLines;
        // Where the part that may go starts: after the marker, or (the first time) after the first lines.
        const from = gap === undefined ? at : at + gap.markerBytes;
        const tailFrom = await lineStartFrom(this.file, Math.max(from, this.fileBytes - Math.floor(this.limit / 4)), this.fileBytes, buffer);
        if (tailFrom <= from) {
            return;
        }
        const keptLines = await moveDown(this.file, tailFrom, at + MARKER_BYTES, this.fileBytes, buffer);
        const kept = this.fileBytes - tailFrom;
        const droppedBytes = (gap?.droppedBytes ?? 0) + (tailFrom - from);
        const droppedLines = this.fileLines - headLines - keptLines;
        const marker = Buffer.from(markerText(droppedLines, droppedBytes, this.limit).padEnd(MARKER_BYTES - 1, ' ') + '\n');
        await this.file.writev([marker], at);
        await this.file.truncate(at + MARKER_BYTES + kept);
        this.fileBytes = at + MARKER_BYTES + kept;
        // Set in the same turn as the file is final, still under the guard: a reader sees both or neither.
        this.entry.gap = { at, markerBytes: MARKER_BYTES, headLines, droppedBytes, droppedLines };
    }
}

/** The marker line's words (the line is padded to MARKER_BYTES). */
function markerText(lines: number, bytes: number, limit: number): string {
    return `[mcp-tasks] ${lines} line(s) (${kb(bytes)}) of output left out here to keep this running log within ${kb(limit)} (--commands-log-limit); the lines after it keep the numbers they had`;
}
