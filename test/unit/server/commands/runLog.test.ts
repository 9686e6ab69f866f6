/**
 * A running command's log held within its limit: the first lines, one marker, the latest lines;
 * read_output and the digest number lines and count bytes as the command wrote them, also while
 * the middle is being left out.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileLine, LogGuard, writtenLine, type LogGap } from '../../../../server/src/commands/logGap.js';
import { readOutput } from '../../../../server/src/commands/readOutput.js';
import { MARKER_BYTES, RunLog } from '../../../../server/src/commands/runLog.js';
import { scanLog } from '../../../../server/src/commands/scan.js';

const dir = mkdtempSync(join(tmpdir(), 'cmd-runlog-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const LIMIT = 1024 * 1024;
/** Line n of the output, as the command writes it: its number is in its text. */
const line = (n: number) => `line ${String(n).padStart(7, '0')} ${'x'.repeat(n % 50)}`;

/** Writes lines 1..count through a RunLog as a command's output would arrive (a few KiB at a time, waiting when asked to). */
async function writeLines(log: RunLog, count: number, onChunk?: () => Promise<void>): Promise<void> {
    let chunk = '';
    for (let n = 1; n <= count; n++) {
        chunk += `${line(n)}\n`;
        if (chunk.length > 8000 || n === count) {
            if (!log.write(Buffer.from(chunk))) {
                await log.drained();
            }
            chunk = '';
            await onChunk?.();
        }
    }
}

async function open(name: string) {
    const file = { path: join(dir, name), guard: new LogGuard(), gap: undefined as LogGap | undefined };
    const log = await RunLog.open(file, LIMIT, err => assert.fail(err));
    return { file, log };
}

describe('a running log within its limit', () => {
    const COUNT = 400_000; // about 25 MB of output

    it('keeps the first lines, one marker saying what went, and the latest lines, within the limit', async () => {
        const { file, log } = await open('flood.log');
        await writeLines(log, COUNT);
        await log.end();
        assert.ok(statSync(file.path).size <= LIMIT, `${statSync(file.path).size} bytes within ${LIMIT}`);
        const text = readFileSync(file.path, 'utf8');
        const lines = text.split('\n').slice(0, -1);
        const gap = file.gap!;
        assert.ok(gap, 'the middle was left out');
        assert.equal(lines[0], line(1), 'the first line is there');
        assert.equal(lines.at(-1), line(COUNT), 'the last line is there');
        const marker = lines[gap.headLines]!;
        assert.match(marker, /^\[mcp-tasks\] (\d+) line\(s\) \([\d.]+ MB\) of output left out here to keep this running log within 1\.0 MB \(--commands-log-limit\)/);
        assert.equal(Buffer.byteLength(`${marker}\n`), MARKER_BYTES);
        assert.equal(Number(/\] (\d+) line/.exec(marker)![1]), gap.droppedLines);
        // Every line is whole and in order: the head up to the marker, the rest from where the drop ended.
        lines.forEach((text, i) => {
            if (i !== gap.headLines) {
                assert.equal(text, line(writtenLine(i + 1, gap)), `file line ${i + 1}`);
            }
        });
        assert.equal(gap.headLines + gap.droppedLines + lines.length - gap.headLines - 1, COUNT, 'every line is kept or counted as left out');
        const written = Array.from({ length: COUNT }, (_, i) => Buffer.byteLength(`${line(i + 1)}\n`)).reduce((a, b) => a + b, 0);
        assert.equal(statSync(file.path).size - MARKER_BYTES + gap.droppedBytes, written, 'every byte is kept or counted as left out');

        const scan = await scanLog(file.path, /never matches/, gap);
        assert.equal(scan.lines, COUNT, 'the digest counts the lines as written');
        assert.equal(scan.bytes, written);
        assert.deepEqual(scan.dropped, { bytes: gap.droppedBytes, lines: gap.droppedLines });
        assert.deepEqual(
            scan.tail.map(({ n, text }) => [n, text]),
            Array.from({ length: 25 }, (_, i) => [COUNT - 24 + i, line(COUNT - 24 + i)]),
            'the last lines with the numbers they had',
        );
    });

    it('read_output numbers lines as written: by line, at the end, by grep, by offset; a line left out reads as the marker', async () => {
        const { file, log } = await open('read.log');
        await writeLines(log, COUNT);
        await log.end();
        const gap = file.gap!;
        const read = (request: Partial<Parameters<typeof readOutput>[1]>) => readOutput(file.path, { offset: 0, maxBytes: 20 * 1024, gap, ...request });

        const late = COUNT - 100;
        const byLine = await read({ fromLine: late, lines: 3 });
        assert.equal(byLine.text, [late, late + 1, late + 2].map(n => `${n}: ${line(n)}`).join('\n'));
        assert.equal(byLine.nextLine, late + 3);

        const acrossMarker = await read({ fromLine: gap.headLines, lines: 3 });
        const shown = acrossMarker.text.split('\n');
        assert.equal(shown[0], `${gap.headLines}: ${line(gap.headLines)}`);
        assert.match(shown[1]!, new RegExp(`^${gap.headLines + 1}: \\[mcp-tasks\\] ${gap.droppedLines} line`), 'the marker has the first number it stands for');
        const afterGap = gap.headLines + gap.droppedLines + 1;
        assert.equal(shown[2], `${afterGap}: ${line(afterGap)}`, 'the line after it has the number it had');

        const leftOut = await read({ fromLine: gap.headLines + 5, lines: 1 });
        assert.match(leftOut.text, /^\d+: \[mcp-tasks\]/, 'a line that was left out reads as the marker');
        assert.equal(leftOut.nextLine, afterGap, 'and the next read goes past it');

        const tail = await read({ tailLines: 2 });
        assert.deepEqual([tail.firstLine, tail.lastLine, tail.text], [COUNT - 1, COUNT, `${line(COUNT - 1)}\n${line(COUNT)}`]);

        const grep = await read({ grep: new RegExp(`^line ${String(late).padStart(7, '0')} `) });
        assert.equal(grep.text, `${late}: ${line(late)}`);

        const size = byLine.size;
        const end = await read({ offset: size - Buffer.byteLength(`${line(COUNT)}\n`) });
        assert.equal(end.text, `${line(COUNT)}\n`, 'an offset as written reads the same bytes');
        assert.equal(end.next, size);
    });

    it('reads made while the middle is being left out see the file and its numbers as one', async () => {
        const { file, log } = await open('busy.log');
        const mismatches: string[] = [];
        let reads = 0;
        let gapsSeen = 0;
        const check = async () => {
            const answer = await file.guard.read(() => readOutput(file.path, { offset: 0, maxBytes: 4096, tailLines: 5, gap: file.gap }));
            reads++;
            gapsSeen += file.gap ? 1 : 0;
            const first = answer.firstLine;
            const shown = answer.text.split('\n');
            shown.forEach((text, i) => {
                // The last line may still be being written (a prefix of itself).
                const whole = text === line(first! + i) || (i === shown.length - 1 && line(first! + i).startsWith(text));
                if (first !== undefined && !text.startsWith('[mcp-tasks]') && !whole) {
                    mismatches.push(`line ${first + i} read as ${text.slice(0, 20)}`);
                }
            });
        };
        const pending: Promise<void>[] = [];
        await writeLines(log, 200_000, async () => void pending.push(check()));
        await Promise.all(pending);
        await log.end();
        assert.ok(gapsSeen > 0 && reads > gapsSeen, `reads before and after the first drop (${gapsSeen} of ${reads})`);
        assert.deepEqual(mismatches, []);
    });

    it('a line number or offset given before more was left out still means the same line after', () => {
        const before: LogGap = { at: 1000, markerBytes: MARKER_BYTES, headLines: 10, droppedBytes: 5000, droppedLines: 50 };
        const later: LogGap = { ...before, droppedBytes: 9000, droppedLines: 90 };
        // Line 70 was kept after the first drop and left out by the second: it reads as the marker then.
        assert.equal(fileLine(70, before), 70 - 50 + 1);
        assert.equal(fileLine(70, later), 11);
        assert.equal(writtenLine(fileLine(200, later), later), 200);
    });
});
