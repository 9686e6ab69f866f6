/** The digest of a command's output: what a model reads of a run, bounded, with the failing lines first. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DIGEST_MAX_BYTES, digest } from '../../../../server/src/commands/digest.js';
import { DEFAULT_FAILURE_PATTERN, scanLog, scanText, SCAN_MAX_BYTES } from '../../../../server/src/commands/scan.js';

const dir = mkdtempSync(join(tmpdir(), 'cmd-digest-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A TAP suite of `count` tests with long names, test `failAt` failing with a YAML block, as node --test prints it. */
export function tapSuite(count: number, failAt: number, nameLength = 200): string {
    const lines = ['TAP version 13'];
    for (let i = 1; i <= count; i++) {
        const name = `suite case ${i} ${'x'.repeat(nameLength)}`;
        if (i === failAt) {
            lines.push(`not ok ${i} - ${name}`, '  ---', '  error: "Expected values to be strictly equal: 41 !== 42"', '  location: "/src/parser.test.ts:12:5"', '  ...');
        } else {
            lines.push(`ok ${i} - ${name}`);
        }
    }
    lines.push(`1..${count}`, `# tests ${count}`, `# pass ${count - 1}`, '# fail 1', '# duration_ms 88600.93');
    return lines.join('\n') + '\n';
}

describe('command output digest', () => {
    it('the default failure pattern knows the common runners', () => {
        const failing = [
            'not ok 3 - parses',
            ' FAIL  test/a.test.ts > adds',
            '  ✗ adds numbers',
            '  ✘ adds numbers',
            '✖ adds numbers (1.2ms)',
            '  × adds numbers',
            '  ✕ adds numbers (3 ms)',
            '  2 failing',
            '2 tests failed: parser, lexer',
            '# fail 2',
            'TypeError: x is not a function',
            'Error: boom',
            'AssertionError [ERR_ASSERTION]: 1 == 2',
        ];
        const passing = ['ok 3 - parses', '# fail 0', '  12 passing (3s)', 'errors: none', 'Tests: 0 failed'];
        for (const line of failing) {
            assert.ok(DEFAULT_FAILURE_PATTERN.test(line), line);
        }
        for (const line of passing) {
            assert.ok(!DEFAULT_FAILURE_PATTERN.test(line), line);
        }
    });

    it('a failure in the first half of a long suite is in the digest, with its context, under the cap', async () => {
        const path = join(dir, 'long.log');
        writeFileSync(path, tapSuite(1200, 537));
        const scan = await scanLog(path);
        const text = digest({ headline: 'exit 1 after 88.6 s: npm test', scan, logPath: path, taskId: 't1' });
        assert.ok(Buffer.byteLength(text) <= DIGEST_MAX_BYTES, `${Buffer.byteLength(text)} bytes`);
        assert.match(text, /^exit 1 after 88\.6 s: npm test\n/);
        assert.match(text, /\n538\| not ok 537 - suite case 537/, 'the failing test, numbered');
        assert.match(text, /Expected values to be strictly equal: 41 !== 42/, 'its error, from the context after it');
        assert.match(text, /location: "\/src\/parser\.test\.ts:12:5"/);
        assert.match(text, /First lines:\n\s*1\| TAP version 13/);
        assert.match(text, /Last lines:\n[\s\S]*# duration_ms 88600\.93/);
        // The tool's description promises the failing lines first: before the passing first lines.
        assert.ok(text.indexOf('not ok 537 - suite case 537') < text.indexOf('First lines:'), 'the failing lines come before the first lines');
        assert.ok(text.indexOf('matched the failure pattern') < text.indexOf('First lines:'));
        assert.match(text, new RegExp(`Full log \\(1210 lines, [\\d.]+ KB\\): ${path}; read_output with task_id "t1"`));
        // Lines of 200+ characters are cut to 300 with an ellipsis, so the tail keeps many of them.
        assert.ok(text.split('\n').every(line => line.length < 320));
    });

    it('reading the log a block at a time finds what reading it a line at a time does', async () => {
        const text = tapSuite(3000, 1700, 30) + 'filler\n'.repeat(20_000) + 'Error: at the end\n  at frame 1\n  at frame 2\nlast\n';
        const path = join(dir, 'blocks.log');
        writeFileSync(path, text);
        assert.deepEqual(await scanLog(path), scanText(text));
    });

    it('a failure among the first lines keeps the lines below it (an assertion diff) in the digest', () => {
        const diff = Array.from({ length: 20 }, (_, i) => `      diff line ${i + 1}`);
        const text = ['TAP version 13', '# Subtest: parse', '    not ok 1 - parses', '      ---', ...diff, ...Array.from({ length: 500 }, (_, i) => `ok ${i + 2} - fine`)].join('\n') + '\n';
        const out = digest({ headline: 'exit 1 after 1.0 s: x', scan: scanText(text), logPath: '/tmp/x.log' });
        assert.match(out, /First lines:\n1\| TAP version 13\n2\| # Subtest: parse\n3\| {5}not ok 1 - parses/);
        assert.match(out, /24\| {7}diff line 20/, 'the diff past the first lines is there');
        assert.equal(out.split('not ok 1 - parses').length, 2, 'the failing line once');
    });

    it('a short output is shown whole, each line once', () => {
        const scan = scanText('one\ntwo\nError: three\n');
        const text = digest({ headline: 'exit 1 after 0.1 s: x', scan, logPath: '/tmp/x.log' });
        assert.equal(text, 'exit 1 after 0.1 s: x\nOutput (3 lines):\n1| one\n2| two\n3| Error: three\nFull log (3 lines, 21 B): /tmp/x.log.');
    });

    it('many failures: the first groups are shown and the rest counted as left out', () => {
        const lines: string[] = [];
        for (let i = 0; i < 500; i++) {
            lines.push(`ok ${i}`, `not ok ${i} - ${'y'.repeat(250)}`, '  at somewhere', '  at elsewhere');
        }
        const scan = scanText(lines.join('\n') + '\n');
        const text = digest({ headline: 'exit 1 after 3.0 s: x', scan, logPath: '/tmp/x.log', taskId: 't' });
        assert.ok(Buffer.byteLength(text) <= DIGEST_MAX_BYTES);
        assert.match(text, /500 lines matched the failure pattern, with context:/);
        assert.match(text, /Left out: \d+ more group\(s\) of matching lines; matching lines after the first 40 groups/);
    });

    it('a custom failure pattern replaces the default', () => {
        const scan = scanText('BUILD BROKEN here\nnot ok 1\n', /BROKEN/);
        assert.equal(scan.matches, 1);
    });

    it('colour codes are gone from what a model reads', () => {
        const scan = scanText('\x1b[31m✖ fails\x1b[39m\n');
        assert.equal(scan.head[0]!.text, '✖ fails');
        assert.equal(scan.matches, 1);
    });

    it('a huge log is searched in its first part and its tail read from the end', async () => {
        const path = join(dir, 'huge.log');
        const filler = ('z'.repeat(99) + '\n').repeat(Math.ceil(SCAN_MAX_BYTES / 100) + 20_000);
        writeFileSync(path, 'start\nnot ok 1 - early\n' + filler + 'the very end\n');
        const scan = await scanLog(path);
        assert.equal(scan.matches, 1);
        assert.ok(scan.skippedBytes > 0);
        assert.equal(scan.tail.at(-1)!.text, 'the very end');
        assert.equal(scan.tail.at(-1)!.n, undefined, 'lines after a skipped part have no number');
        const text = digest({ headline: 'exit 0 in 9.0 s: x', scan, logPath: path });
        assert.match(text, /not searched \(the log is large\)/);
        assert.match(text, /not ok 1 - early/);
    });
});
