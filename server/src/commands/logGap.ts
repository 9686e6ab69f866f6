/**
 * The middle a running command's log left out to stay within its limit (runLog.ts): the log holds
 * the command's first lines, one marker line where the middle was, and its latest lines. Readers
 * number lines and count bytes as the command wrote them, not as the file now holds them: the
 * marker takes the first number of the lines it stands for, the line after it the number it had,
 * and a line number or offset a reader was given keeps meaning the same line as more is left out.
 */
export interface LogGap {
    /** Where the marker line starts in the file: the end of the kept first lines (a line start). */
    at: number;
    /** The marker line's length in bytes, its newline included. */
    markerBytes: number;
    /** The lines before the marker. */
    headLines: number;
    /** What was left out, as the command wrote it: bytes and (whole) lines. */
    droppedBytes: number;
    droppedLines: number;
}

/** Where byte `offset` of the output as written is in the file: a byte that was left out reads from the marker. */
export function fileOffset(offset: number, gap: LogGap | undefined): number {
    if (gap === undefined || offset <= gap.at) {
        return offset;
    }
    return offset < gap.at + gap.droppedBytes ? gap.at : offset - gap.droppedBytes + gap.markerBytes;
}

/** Which byte of the output as written is at `offset` in the file (inside the marker: where it starts). */
export function writtenOffset(offset: number, gap: LogGap | undefined): number {
    if (gap === undefined || offset <= gap.at) {
        return offset;
    }
    return offset < gap.at + gap.markerBytes ? gap.at : offset - gap.markerBytes + gap.droppedBytes;
}

/** The line of the file that shows line `line` of the output as written (1 is the first): a line left out shows as the marker. */
export function fileLine(line: number, gap: LogGap | undefined): number {
    if (gap === undefined || line <= gap.headLines + 1) {
        return line;
    }
    return line <= gap.headLines + gap.droppedLines ? gap.headLines + 1 : line - gap.droppedLines + 1;
}

/** The number line `line` of the file has as written (the marker: the first line it stands for). */
export function writtenLine(line: number, gap: LogGap | undefined): number {
    return gap === undefined || line <= gap.headLines + 1 ? line : line + gap.droppedLines - 1;
}

/**
 * Keeps reads and the leaving out of a running log's middle apart: the middle is rewritten in
 * place, so a read waits while it is, and it waits for the reads under way (a grep may take up to
 * its one-second deadline). A read sees the file and its gap as one.
 */
export class LogGuard {
    private readers = 0;
    private rewriting?: Promise<void>;
    private readersDone?: () => void;

    async read<T>(reader: () => Promise<T>): Promise<T> {
        while (this.rewriting) {
            await this.rewriting;
        }
        this.readers++;
        try {
            return await reader();
        } finally {
            if (--this.readers === 0) {
                this.readersDone?.();
            }
        }
    }

    async rewrite(writer: () => Promise<void>): Promise<void> {
        let done!: () => void;
        this.rewriting = new Promise(resolve => (done = resolve));
        try {
            while (this.readers > 0) {
                await new Promise<void>(resolve => (this.readersDone = resolve));
            }
            this.readersDone = undefined;
            await writer();
        } finally {
            this.rewriting = undefined;
            done();
        }
    }
}
