import type { FileHandle } from 'node:fs/promises';

/**
 * Moving the kept lines of a log down in place (runLog.ts while a command runs, logShrink.ts once
 * logs pass their cap): the path never changes file under a task that points at it.
 */

/** How much of the kept part is moved per read and write. */
const COPY_CHUNK = 256 * 1024;
/**
 * The buffer the moves go through, shared by every log and lent to one move at a time (another at
 * the same moment gets one of its own): a flood under a 1 MiB limit moves its kept part hundreds
 * of times, and a fresh buffer each time grew the server's memory by a third.
 */
let spareBuffer: Buffer | undefined;

/** Runs `work` with the shared copy buffer, or a fresh one while another move holds it. */
export async function withCopyBuffer<T>(work: (buffer: Buffer) => Promise<T>): Promise<T> {
    const buffer = spareBuffer ?? Buffer.allocUnsafe(COPY_CHUNK);
    spareBuffer = undefined;
    try {
        return await work(buffer);
    } finally {
        spareBuffer = buffer;
    }
}

/** The start of the first line that begins at or after `position` in a file of `size` bytes (`size` if none does). */
export async function lineStartFrom(file: FileHandle, position: number, size: number, buffer: Buffer): Promise<number> {
    if (position === 0) {
        return 0;
    }
    for (let at = position - 1; at < size; ) {
        const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, size - at), at);
        if (bytesRead === 0) {
            break;
        }
        const newline = buffer.subarray(0, bytesRead).indexOf(0x0a);
        if (newline >= 0) {
            return at + newline + 1;
        }
        at += bytesRead;
    }
    return size;
}

/** The line ends in bytes [from, to) of the file. */
export async function countLines(file: FileHandle, from: number, to: number, buffer: Buffer): Promise<number> {
    let lines = 0;
    for (let at = from; at < to; ) {
        const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, to - at), at);
        if (bytesRead === 0) {
            break;
        }
        lines += newlinesIn(buffer.subarray(0, bytesRead));
        at += bytesRead;
    }
    return lines;
}

/** Moves bytes [from, size) down to `to` (< from), a chunk at a time, front first; returns the lines moved. */
export async function moveDown(file: FileHandle, from: number, to: number, size: number, buffer: Buffer): Promise<number> {
    let lines = 0;
    for (let done = 0; from + done < size; ) {
        const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, size - from - done), from + done);
        if (bytesRead === 0) {
            break;
        }
        const chunk = buffer.subarray(0, bytesRead);
        lines += newlinesIn(chunk);
        // Each chunk is read whole before it is written lower down, so no byte is overwritten before it is read.
        await file.writev([chunk], to + done);
        done += bytesRead;
    }
    return lines;
}

function newlinesIn(chunk: Buffer): number {
    let lines = 0;
    for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, at + 1)) {
        lines++;
    }
    return lines;
}
