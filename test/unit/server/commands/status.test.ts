/**
 * A failed run's status message, all VS Code shows of it: each failing test's name, file:line and
 * message, the task's id and how to read the rest, the log; at most 1000 characters.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { scanText } from '../../../../server/src/commands/scan.js';
import { statusDigest } from '../../../../server/src/commands/status.js';

const SAMPLES = resolve(__dirname, '../../../fixtures/testOutput');
const sample = (name: string) => readFileSync(resolve(SAMPLES, `${name}.txt`), 'utf8');
/** Where capture.sh ran the sample suites. */
const CWD = '/tmp/mcp-tasks-samples';
const headline = 'exit 1 after 0.4 s: node --test test/*.test.mjs';

describe('status message of a failed run', () => {
    it('a node:test failure: each test with its file:line and message, the one its suite cancelled last, then the task and the log', () => {
        const scan = scanText(sample('node-tap'));
        const message = statusDigest({ headline, scan, logPath: '/logs/t1.log', taskId: 't1', readOutput: true, cwd: CWD });
        assert.equal(
            message,
            [
                headline,
                '5 failing tests:',
                '✖ store (test/hooks.test.mjs:6)',
                '  TypeError: cannot connect to the store',
                '✖ multiplies (test/math.test.mjs:9)',
                '  two times three is six',
                '  6 !== 7',
                '✖ divides (test/math.test.mjs:12)',
                '  Expected values to be strictly deep-equal:',
                '  +   q: 2',
                '  -   q: 3',
                '✖ throws a plain error (test/math.test.mjs:16)',
                '  database unreachable',
                '✖ reads (test/hooks.test.mjs:8)',
                '  test did not finish before its parent and was cancelled',
                'Task t1: read_output with task_id "t1" reads the whole output. Full log: /logs/t1.log',
            ].join('\n'),
        );
    });

    it('without read_output it names the task and the log; outside a task, the log', () => {
        const scan = scanText(sample('mocha-spec'));
        assert.match(statusDigest({ headline, scan, logPath: '/logs/t1.log', taskId: 't1', cwd: CWD }), /\n {2}6 !== 7\n[\s\S]*\nTask t1\. Full log: \/logs\/t1\.log$/);
        const inline = statusDigest({ headline, scan, logPath: '/logs/x.log', cwd: CWD });
        assert.match(inline, /\n✖ math > multiplies \(test\/math\.spec\.js:8\)\n {2}two times three is six\n/);
        assert.match(inline, /\n {2}TypeError: cannot connect to the store\n[\s\S]*\nFull log: \/logs\/x\.log$/);
        assert.doesNotMatch(inline, /Task|read_output/);
    });

    it('jest and vitest failures: each test with its suites, file:line and message', () => {
        for (const name of ['jest', 'vitest']) {
            const message = statusDigest({ headline, scan: scanText(sample(name)), logPath: '/logs/t2.log', taskId: 't2', readOutput: true, cwd: CWD });
            assert.match(message, /\n2 failing tests:\n✖ calc > multiplies \(test\/calc\.test\.js:6\)\n {2}expect/, name);
            assert.match(message, /\n✖ throws a plain error \(test\/calc\.test\.js:10\)\n {2}(?:Error: )?database unreachable\n/, name);
        }
    });

    it('many failures: within 1000 characters, each shown one with its place and first message line, the rest counted', () => {
        const lines = ['TAP version 13'];
        for (let i = 1; i <= 40; i++) {
            lines.push(`not ok ${i} - case ${i} ${'n'.repeat(60)}`, '  ---', `  location: '${CWD}/test/many.test.mjs:${i * 10}:3'`, '  error: |-', `    value ${i} was wrong`, `    ${'detail '.repeat(12)}`, '  ...');
        }
        const scan = scanText(lines.join('\n'));
        const message = statusDigest({ headline, scan, logPath: `/logs/${'deep/'.repeat(20)}t9.log`, taskId: 't9', readOutput: true, cwd: CWD });
        assert.ok(message.length <= 1000, `${message.length} characters`);
        const shown = [...message.matchAll(/^✖ case (\d+) n+ \(test\/many\.test\.mjs:(\d+)\)\n {2}value (\d+) was wrong$/gm)];
        assert.ok(shown.length >= 3, `${shown.length} shown`);
        shown.forEach((match, i) => assert.deepEqual([match[1], match[2], match[3]], [`${i + 1}`, `${(i + 1) * 10}`, `${i + 1}`]));
        assert.match(message, new RegExp(`\\n… and ${40 - shown.length} more\\nTask t9: read_output with task_id "t9"`));
        assert.match(message, /Full log: \/logs\/(deep\/){20}t9\.log$/, 'the log path whole');
    });

    it('output in no known format: the first lines matching the failure pattern, as before', () => {
        const scan = scanText('compiling\nsrc/a.ts(3,1): error TS2345: Argument of type\nError: build failed\ndone\n');
        assert.equal(
            statusDigest({ headline: 'exit 2 after 1.0 s: tsc', scan, logPath: '/logs/b.log', taskId: 'b1', readOutput: true }),
            'exit 2 after 1.0 s: tsc\nError: build failed\nTask b1: read_output with task_id "b1" reads the whole output. Full log: /logs/b.log',
        );
    });
});
