import { open } from 'node:fs/promises';
import { kb } from './digest.js';
import { countLines, lineStartFrom, moveDown, withCopyBuffer } from './logMove.js';
import { MARKER_BYTES, type RunLogFile } from './runLog.js';

/**
 * What an ended log keeps once the command logs together pass --commands-log-limit: its first
 * lines (a quarter) and its last ones. A log is deleted only when its task expires, so a task
 * never points at a log that is gone; past the cap, the oldest ended logs keep this much each, and
 * a folder of many such logs may hold more than the cap (this much per log, at most).
 */
export const SHRUNK_LOG_BYTES = 64 * 1024;

/**
 * Cuts an ended log down to `keepBytes` in place: its first lines, one marker line saying what
 * went, its last lines. A middle already left out while it ran (runLog.ts) is part of what goes,
 * so the log keeps a single marker, and its counts (LogGap) stay those of the output as written:
 * read_output numbers lines and counts bytes as before. Under the log's guard, so no read sees the
 * file half cut. Resolves with the file's size (unchanged when it was already small enough).
 */
export async function shrinkEndedLog(entry: RunLogFile, capBytes: number, keepBytes = SHRUNK_LOG_BYTES): Promise<number> {
    let size = 0;
    await entry.guard.rewrite(async () => {
        const file = await open(entry.path, 'r+');
        try {
            size = (await file.stat()).size;
            if (size <= keepBytes) {
                return;
            }
            size = await withCopyBuffer(async buffer => {
                const gap = entry.gap;
                const headBudget = Math.floor(keepBytes / 4);
                // The first lines kept: a middle left out before already starts within the budget, or they end at the budget's last line end.
                let head: number;
                let headLines: number;
                if (gap !== undefined && gap.at <= headBudget) {
                    head = gap.at;
                    headLines = gap.headLines;
                } else {
                    head = await lastLineEndBefore(file, headBudget, buffer);
                    headLines = await countLines(file, 0, head, buffer);
                }
                let tailFrom = await lineStartFrom(file, Math.max(head, size - (keepBytes - headBudget - MARKER_BYTES)), size, buffer);
                if (gap !== undefined) {
                    // Never keep the old marker as a line of the tail: it is part of the middle that goes.
                    tailFrom = Math.max(tailFrom, gap.at + gap.markerBytes);
                }
                if (tailFrom <= head + MARKER_BYTES) {
                    return size;
                }
                // The middle as the file holds it, then as the command wrote it (the old marker stands for what it left out).
                const middleFileLines = await countLines(file, head, tailFrom, buffer);
                const droppedLines = gap === undefined ? middleFileLines : middleFileLines - 1 + gap.droppedLines;
                const droppedBytes = gap === undefined ? tailFrom - head : tailFrom - head - gap.markerBytes + gap.droppedBytes;
                const kept = size - tailFrom;
                await moveDown(file, tailFrom, head + MARKER_BYTES, size, buffer);
                const marker = Buffer.from(markerText(droppedLines, droppedBytes, capBytes).padEnd(MARKER_BYTES - 1, ' ') + '\n');
                await file.writev([marker], head);
                await file.truncate(head + MARKER_BYTES + kept);
                // Still under the guard: a reader sees the cut file and its counts together.
                entry.gap = { at: head, markerBytes: MARKER_BYTES, headLines, droppedBytes, droppedLines };
                return head + MARKER_BYTES + kept;
            });
        } finally {
            await file.close();
        }
    });
    return size;
}

/** The end of the last line that ends at or before `limit` (0 when none does). */
async function lastLineEndBefore(file: Awaited<ReturnType<typeof open>>, limit: number, buffer: Buffer): Promise<number> {
    const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, limit), 0);
    return buffer.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
}

/** The marker line's words (the line is padded to MARKER_BYTES). */
function markerText(lines: number, bytes: number, capBytes: number): string {
    return `[mcp-tasks] ${lines} line(s) (${kb(bytes)}) of output left out here: the command logs passed ${kb(capBytes)} (--commands-log-limit), so older ended logs keep their first and last lines; the lines after it keep the numbers they had`;
}
