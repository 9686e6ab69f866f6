/**
 * An ended log cut down once the command logs pass their cap (logShrink.ts): it stays where its
 * task points, keeps its first and last lines and one marker, and read_output numbers its lines
 * and counts its bytes as the command wrote them, also when its middle was already left out
 * while it ran.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LogGuard, writtenLine, type LogGap } from '../../../../server/src/commands/logGap.js';
import { shrinkEndedLog, SHRUNK_LOG_BYTES } from '../../../../server/src/commands/logShrink.js';
import { readOutput } from '../../../../server/src/commands/readOutput.js';
import { MARKER_BYTES, RunLog } from '../../../../server/src/commands/runLog.js';

const dir = mkdtempSync(join(tmpdir(), 'cmd-shrink-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const CAP = 1024 * 1024;
/** Line n of the output: its number is in its text. */
const line = (n: number) => `line ${String(n).padStart(6, '0')} ${'y'.repeat(n % 40)}`;
const writtenBytes = (count: number) => Array.from({ length: count }, (_, i) => Buffer.byteLength(`${line(i + 1)}\n`)).reduce((a, b) => a + b, 0);

const logFile = (name: string) => ({ path: join(dir, name), guard: new LogGuard(), gap: undefined as LogGap | undefined });

/** Lines 1..count written straight to the file, as an ended log of a run that stayed within its limit. */
function plainLog(name: string, count: number) {
    const file = logFile(name);
    writeFileSync(file.path, Array.from({ length: count }, (_, i) => `${line(i + 1)}\n`).join(''));
    return file;
}

/** Lines 1..count written through a RunLog held within `limit`, as a command's output arrives. */
async function runLog(name: string, count: number, limit: number) {
    const file = logFile(name);
    const log = await RunLog.open(file, limit, err => assert.fail(err));
    let chunk = '';
    for (let n = 1; n <= count; n++) {
        chunk += `${line(n)}\n`;
        if (chunk.length > 4000 || n === count) {
            if (!log.write(Buffer.from(chunk))) {
                await log.drained();
            }
            chunk = '';
        }
    }
    await log.end();
    return file;
}

/** The cut log holds whole lines in order, one marker, and accounts for every line and byte written. */
function assertAccounted(file: { path: string; gap?: LogGap }, count: number): string {
    const size = statSync(file.path).size;
    assert.ok(size <= SHRUNK_LOG_BYTES, `${size} bytes within ${SHRUNK_LOG_BYTES}`);
    const gap = file.gap!;
    const lines = readFileSync(file.path, 'utf8').split('\n').slice(0, -1);
    const marker = lines[gap.headLines]!;
    assert.equal(lines.filter(text => text.startsWith('[mcp-tasks]')).length, 1, 'one marker');
    assert.equal(Buffer.byteLength(`${marker}\n`), MARKER_BYTES);
    assert.equal(Number(/\] (\d+) line/.exec(marker)![1]), gap.droppedLines);
    lines.forEach((text, i) => i !== gap.headLines && assert.equal(text, line(writtenLine(i + 1, gap)), `file line ${i + 1}`));
    assert.equal(lines.at(-1), line(count), 'the last line is there');
    assert.equal(lines.length - 1 + gap.droppedLines, count, 'every line kept or counted as left out');
    assert.equal(size - MARKER_BYTES + gap.droppedBytes, writtenBytes(count), 'every byte kept or counted as left out');
    return marker;
}

describe('an ended log cut down past the cap', () => {
    it('keeps its first and last lines and one marker naming the cap; read_output numbers lines as written', async () => {
        const COUNT = 20_000;
        const file = plainLog('plain.log', COUNT);
        const size = await shrinkEndedLog(file, CAP);
        assert.equal(size, statSync(file.path).size);
        const marker = assertAccounted(file, COUNT);
        assert.match(marker, /^\[mcp-tasks\] \d+ line\(s\) \([\d.]+ KB\) of output left out here: the command logs passed 1\.0 MB \(--commands-log-limit\)/);
        assert.equal(readFileSync(file.path, 'utf8').split('\n')[0], line(1), 'the first line is there');
        const gap = file.gap!;
        assert.ok(gap.at <= SHRUNK_LOG_BYTES / 4, 'the first lines take at most a quarter');

        const tail = await readOutput(file.path, { offset: 0, maxBytes: 4096, gap, tailLines: 2 });
        assert.deepEqual([tail.firstLine, tail.lastLine], [COUNT - 1, COUNT]);
        const byLine = await readOutput(file.path, { offset: 0, maxBytes: 4096, gap, fromLine: COUNT - 10, lines: 1 });
        assert.equal(byLine.text, `${COUNT - 10}: ${line(COUNT - 10)}`);
        assert.equal(tail.size, writtenBytes(COUNT), "the log's size as written");
    });

    it('a middle left out while it ran goes with the rest: still one marker, the counts of the whole output', async () => {
        const COUNT = 30_000;
        const file = await runLog('ran.log', COUNT, 256 * 1024);
        const before = file.gap!;
        assert.ok(before && before.at > SHRUNK_LOG_BYTES / 4, 'its first lines ran past what a cut log keeps');
        await shrinkEndedLog(file, CAP);
        assertAccounted(file, COUNT);
        assert.ok(file.gap!.droppedLines > before.droppedLines);
    });

    it('a middle left out within what a cut log keeps stays where it is: the first lines as they were', async () => {
        // As a log run under a small limit leaves it: lines 1-50, a marker for 51-100,000, then the latest lines.
        const COUNT = 105_000;
        const file = logFile('early.log');
        const head = Array.from({ length: 50 }, (_, i) => `${line(i + 1)}\n`).join('');
        const dropped = writtenBytes(100_000) - writtenBytes(50);
        const marker = '[mcp-tasks] 99950 line(s) left out while it ran'.padEnd(MARKER_BYTES - 1, ' ') + '\n';
        const tail = Array.from({ length: COUNT - 100_000 }, (_, i) => `${line(100_001 + i)}\n`).join('');
        writeFileSync(file.path, head + marker + tail);
        file.gap = { at: Buffer.byteLength(head), markerBytes: MARKER_BYTES, headLines: 50, droppedBytes: dropped, droppedLines: 99_950 };
        await shrinkEndedLog(file, CAP);
        assertAccounted(file, COUNT);
        assert.equal(file.gap.at, Buffer.byteLength(head));
        assert.equal(file.gap.headLines, 50);
        assert.ok(readFileSync(file.path, 'utf8').startsWith(head));
    });

    it('a log already small enough is left as it is', async () => {
        const file = plainLog('small.log', 100);
        const size = statSync(file.path).size;
        assert.equal(await shrinkEndedLog(file, CAP), size);
        assert.equal(file.gap, undefined);
        assert.equal(readFileSync(file.path, 'utf8').split('\n')[99], line(100));
    });
});
