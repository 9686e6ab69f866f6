/** Reading part of a command's log: bytes from an offset (cut at a line end), the last lines, the matching lines. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readOutput } from '../../../../server/src/commands/readOutput.js';

const dir = mkdtempSync(join(tmpdir(), 'cmd-read-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const path = join(dir, 'log');
const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}${i % 10 === 9 ? ' FAIL' : ''}`);
writeFileSync(path, lines.join('\n') + '\n');
const size = Buffer.byteLength(lines.join('\n') + '\n');

describe('read_output reads', () => {
    it('from an offset, at most max_bytes, ending at a line end, and says where to go on', async () => {
        const first = await readOutput(path, { offset: 0, maxBytes: 50 });
        assert.equal(first.text, 'line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\n');
        assert.equal(first.next, first.text.length);
        assert.equal(first.leftOut, true);
        const second = await readOutput(path, { offset: first.next, maxBytes: 20 });
        assert.equal(second.text, 'line 8\nline 9\n');
        const end = await readOutput(path, { offset: size, maxBytes: 100 });
        assert.deepEqual([end.text, end.next, end.leftOut], ['', size, false]);
    });

    it('the last lines', async () => {
        const tail = await readOutput(path, { offset: 0, tailLines: 3, maxBytes: 8192 });
        assert.equal(tail.text, 'line 98\nline 99\nline 100 FAIL');
        assert.equal(tail.next, size);
    });

    it('the matching lines, numbered, or the last of them; all counted', async () => {
        const grep = await readOutput(path, { offset: 0, grep: /FAIL/, maxBytes: 8192 });
        assert.equal(grep.matches, 10);
        assert.equal(grep.text.split('\n')[0], '10: line 10 FAIL');
        const last = await readOutput(path, { offset: 0, grep: /FAIL/, tailLines: 2, maxBytes: 8192 });
        assert.equal(last.text, '90: line 90 FAIL\n100: line 100 FAIL');
        const capped = await readOutput(path, { offset: 0, grep: /line/, maxBytes: 30 });
        assert.deepEqual([capped.text, capped.matches, capped.leftOut], ['1: line 1\n2: line 2\n3: line 3', 100, true]);
    });
});
