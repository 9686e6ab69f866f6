/** A command's output on its way to the log file, the tail and progress: whole lines, bytes kept, secrets hidden. */
import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CommandOutput } from '../../../server/src/commands/output.js';
import { redactor } from '../../../server/src/commands/secrets.js';

const dir = mkdtempSync(join(tmpdir(), 'cmd-output-'));
let n = 0;

async function run(redact: ((line: string) => string) | undefined, writes: [string, Buffer][]) {
    const path = join(dir, `log-${++n}`);
    const lines: string[] = [];
    const output = new CommandOutput(createWriteStream(path), redact, line => lines.push(line));
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
        const { log, lines, tail, last } = await run(undefined, writes);
        assert.equal(log.toString('utf8'), 'one\r\nwarn here\ntwo €\nno newline at the end\n');
        assert.deepEqual(lines, ['one', 'warn here', 'two €', 'no newline at the end']);
        assert.equal(tail, 'one\nwarn here\ntwo €\nno newline at the end');
        assert.equal(last, 'no newline at the end');
    });

    it('with secrets, the log, tail and lines get them as ***', async () => {
        const { log, lines } = await run(redactor(['here', 'two']), writes);
        assert.equal(log.toString('utf8'), 'one\nwarn ***\n*** €\nno newline at the end\n');
        assert.deepEqual(lines, ['one', 'warn ***', '*** €', 'no newline at the end']);
    });

    it('write() says when the log file is behind, so the caller can pause the pipe', async () => {
        const path = join(dir, 'slow');
        const output = new CommandOutput(createWriteStream(path, { highWaterMark: 16 }), undefined, () => undefined);
        assert.equal(output.write('out', Buffer.from('short\n')), true);
        assert.equal(output.write('out', Buffer.from('x'.repeat(100) + '\n')), false);
        await output.drained();
        await output.end();
        assert.equal(readFileSync(path, 'utf8'), 'short\n' + 'x'.repeat(100) + '\n');
    });
});
