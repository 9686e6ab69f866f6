/** A command's output on its way to the log file, the tail and progress: whole lines, bytes kept, secrets hidden. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LogGuard } from '../../../../server/src/commands/logGap.js';
import { CommandOutput } from '../../../../server/src/commands/output.js';
import { RunLog } from '../../../../server/src/commands/runLog.js';

/** A log with no limit to speak of. */
const logAt = (path: string) => RunLog.open({ path, guard: new LogGuard() }, 2 ** 40, err => assert.fail(err));

const dir = mkdtempSync(join(tmpdir(), 'cmd-output-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

async function run(secrets: string[], writes: [string, Buffer][]) {
    const path = join(dir, `log-${++n}`);
    const lines: string[] = [];
    const output = new CommandOutput(await logAt(path), secrets, line => lines.push(line));
    for (const [stream, chunk] of writes) {
        output.write(stream, chunk);
    }
    await output.end();
    return { log: readFileSync(path), lines, tail: output.text(), last: output.lastLine };
}

describe('command output', () => {
    const euro = Buffer.from('€');
    const writes: [string, Buffer][] = [
        ['out', Buffer.from('one\r\ntw')],
        ['err', Buffer.from('warn ')],
        ['out', Buffer.concat([Buffer.from('o '), euro.subarray(0, 1)])],
        ['err', Buffer.from('here\n')],
        ['out', Buffer.concat([euro.subarray(1), Buffer.from('\nno newline at the end')])],
    ];

    it('with nothing to hide, the log gets the bytes as they came, each stream’s lines whole', async () => {
        const { log, lines, tail, last } = await run([], writes);
        assert.equal(log.toString('utf8'), 'one\r\nwarn here\ntwo €\nno newline at the end\n');
        assert.deepEqual(lines, ['one', 'warn here', 'two €', 'no newline at the end']);
        assert.equal(tail, 'one\nwarn here\ntwo €\nno newline at the end');
        assert.equal(last, 'no newline at the end');
    });

    it('with secrets, the log (line endings as they came), tail and lines get them as ***', async () => {
        const { log, lines } = await run(['here', 'two'], writes);
        assert.equal(log.toString('utf8'), 'one\r\nwarn ***\n*** €\nno newline at the end\n');
        assert.deepEqual(lines, ['one', 'warn ***', '*** €', 'no newline at the end']);
        const split = await run(['hunter22'], [
            ['out', Buffer.from('pass=hun')],
            ['out', Buffer.from('ter22 ok\nlast hunter')],
            ['out', Buffer.from('22')],
        ]);
        assert.equal(split.log.toString('utf8'), 'pass=*** ok\nlast ***\n', 'a secret split across chunks is found');
        assert.equal(split.tail, 'pass=*** ok\nlast ***');
    });

    it('a flood keeps every byte in the log, the last 200 lines in the tail, and the last line for progress', async () => {
        const path = join(dir, 'flood');
        for (const everyLine of [false, true]) {
            const seen: string[] = [];
            const output = new CommandOutput(await logAt(path), [], line => seen.push(line), everyLine);
            let text = '';
            for (let chunk = 0; chunk < 5; chunk++) {
                const lines = Array.from({ length: 700 }, (_, i) => `c${chunk} l${i} ${'é'.repeat(i % 7)}`).join('\n');
                // Each chunk ends mid-line and mid-character: the next one completes both.
                const bytes = Buffer.from(`${lines}\n`, 'utf8');
                text += bytes.toString('utf8');
                output.write('out', bytes.subarray(0, bytes.length - 3));
                output.write('out', bytes.subarray(bytes.length - 3));
            }
            output.write('out', Buffer.from('the end'));
            await output.end();
            text += 'the end\n';
            assert.equal(readFileSync(path, 'utf8'), text, `everyLine ${everyLine}: the log holds every byte`);
            const all = text.slice(0, -1).split('\n');
            assert.equal(output.text(), all.slice(-200).join('\n'));
            assert.equal(output.lastLine, 'the end');
            assert.equal(seen.at(-1), 'the end');
            assert.ok(everyLine ? seen.length === all.length : seen.length < all.length, `everyLine ${everyLine}: ${seen.length} of ${all.length} lines reported`);
            assert.deepEqual(seen.slice(-201), all.slice(-201), 'the lines that matter are whole and in order');
        }
    });

    it('when not every line is needed, a chunk whose early lines hold a needle (a test ending) is reported whole, even split across writes', async () => {
        const path = join(dir, 'needles');
        const reported = async (chunks: Buffer[]) => {
            const seen: string[] = [];
            const output = new CommandOutput(await logAt(path), [], line => seen.push(line), false, ['✔', 'ok ']);
            for (const chunk of chunks) {
                output.write('out', chunk);
            }
            await output.end();
            return seen;
        };
        const lines = (mark: string) => Array.from({ length: 700 }, (_, i) => (i === 5 ? `${mark} test ${i}` : `line ${i}`));
        const whole = (mark: string) => Buffer.from(lines(mark).join('\n') + '\n');
        assert.deepEqual(await reported([whole('✔')]), lines('✔'));
        assert.deepEqual(await reported([whole('ok')]), lines('ok'));
        assert.ok((await reported([whole('--')])).length < 700, 'without a needle only the lines that can be in the tail');
        // The needle's bytes split between two writes, the first of them a partial line.
        const bytes = whole('✔');
        const at = bytes.indexOf('✔') + 1;
        assert.deepEqual(await reported([bytes.subarray(0, at), bytes.subarray(at)]), lines('✔'));
    });

    it('write() says when the log file is behind, so the caller can pause the pipe', async () => {
        const path = join(dir, 'slow');
        const output = new CommandOutput(await logAt(path), [], () => undefined);
        const long = 'x'.repeat(1000) + '\n';
        assert.equal(output.write('out', Buffer.from('short\n')), true);
        assert.equal(output.write('out', Buffer.from(long.repeat(100))), false, 'past the 64 KiB the log holds in memory');
        await output.drained();
        await output.end();
        assert.equal(readFileSync(path, 'utf8'), 'short\n' + long.repeat(100));
    });
});
