/**
 * A test runner's output read for what a person fixing it needs: each failing test's name,
 * file:line and message, and the tests counted as they end. The samples are what the real
 * runners printed for the suites in test/fixtures/testOutput/suites (capture.sh makes them again).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { scanLog, scanText } from '../../../../server/src/commands/scan.js';
import type { TestFailure } from '../../../../server/src/commands/testOutput/failure.js';
import { TestLines } from '../../../../server/src/commands/testOutput/testLines.js';

const SAMPLES = resolve(__dirname, '../../../fixtures/testOutput');
const sample = (name: string) => readFileSync(resolve(SAMPLES, `${name}.txt`), 'utf8');
const ROOT = '/tmp/mcp-tasks-samples/test';
const dir = mkdtempSync(join(tmpdir(), 'test-output-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function read(text: string): TestLines {
    const tests = new TestLines();
    for (const line of text.split('\n')) {
        tests.line(line);
    }
    return tests;
}

/** The runner's own count from its summary line, so the expected numbers come from the runner. */
function summary(text: string, pattern: RegExp): number {
    return [...text.matchAll(new RegExp(pattern.source, 'gm'))].reduce((sum, match) => sum + Number(match[1]), 0);
}

/** What an error print holds that says nothing about the failure: none of it may reach a message. */
const NOISE = /name: '|code: '|operator:|generatedMessage|node:internal|node_modules|^---$|^\.\.\.$|^\s*$|^\s*at /;

function assertNoNoise(failures: TestFailure[]): void {
    for (const failure of failures) {
        for (const line of failure.message) {
            assert.doesNotMatch(line, NOISE, `${failure.name}: ${line}`);
        }
    }
}

const nodeFailures = (declared: (file: string) => string): TestFailure[] => [
    { name: 'reads', file: declared('hooks.test.mjs'), line: 8, message: ['test did not finish before its parent and was cancelled'], consequence: true },
    { name: 'store', file: `${ROOT}/hooks.test.mjs`, line: 6, message: ['TypeError: cannot connect to the store'] },
    { name: 'multiplies', file: `${ROOT}/math.test.mjs`, line: 9, message: ['two times three is six', '6 !== 7'] },
    { name: 'divides', file: `${ROOT}/math.test.mjs`, line: 12, message: ['Expected values to be strictly deep-equal:', '+   q: 2', '-   q: 3'] },
];

describe('test runner output', () => {
    it('node:test spec: each failure from the "failing tests" list, at its first frame in the project (else where it is declared), with its message', () => {
        const text = sample('node-spec');
        const report = read(text).report()!;
        assert.equal(report.format, 'node:test spec');
        assert.deepEqual(report.failures, [
            ...nodeFailures(file => `test/${file}`),
            { name: 'throws a plain error', file: `${ROOT}/math.test.mjs`, line: 16, message: ['Error: database unreachable'] },
        ]);
        // node counts the tests that failed or were cancelled; the suite whose hook failed is listed too.
        assert.equal(report.count, summary(text, /^ℹ fail (\d+)/) + summary(text, /^ℹ cancelled (\d+)/) + 1);
        assertNoNoise(report.failures);
    });

    it('node:test TAP: each not ok with its YAML location, error and stack; a suite failing only through its tests is not listed', () => {
        const text = sample('node-tap');
        const report = read(text).report()!;
        assert.equal(report.format, 'TAP');
        assert.deepEqual(report.failures, [
            ...nodeFailures(file => `${ROOT}/${file}`),
            // TAP's error field has no error name; a plain Error needs none.
            { name: 'throws a plain error', file: `${ROOT}/math.test.mjs`, line: 16, message: ['database unreachable'] },
        ]);
        assert.equal(report.count, summary(text, /^# fail (\d+)/) + summary(text, /^# cancelled (\d+)/) + 1);
        assert.ok(!report.failures.some(failure => failure.name === 'math'), 'the suite "math" failed only because its tests did');
        assertNoNoise(report.failures);
    });

    it('mocha: each numbered failure with its suites in its name, its message without the diff, at its first frame', () => {
        const text = sample('mocha-spec');
        const report = read(text).report()!;
        assert.equal(report.format, 'mocha');
        assert.deepEqual(report.failures, [
            { name: 'throws a plain error', file: 'test/math.spec.js', line: 17, message: ['Error: database unreachable'] },
            { name: 'store > "before all" hook for "reads"', file: 'test/hooks.spec.js', line: 5, message: ['TypeError: cannot connect to the store'] },
            { name: 'math > multiplies', file: 'test/math.spec.js', line: 8, message: ['two times three is six', '6 !== 7'] },
            { name: 'math > division > divides', file: 'test/math.spec.js', line: 12, message: ['Expected values to be strictly deep-equal:', '+   q: 2', '-   q: 3'] },
        ]);
        assert.equal(report.count, summary(text, /^\s*(\d+) failing/));
        assertNoNoise(report.failures);
    });

    it('jest: each "●" failure with its suites in its name, its message without the code frame, at its first frame in the project', () => {
        const text = sample('jest');
        const report = read(text).report()!;
        assert.equal(report.format, 'jest');
        assert.deepEqual(report.failures, [
            { name: 'calc > multiplies', file: 'test/calc.test.js', line: 6, message: ['expect(received).toBe(expected) // Object.is equality', 'Expected: 7', 'Received: 6'] },
            { name: 'throws a plain error', file: 'test/calc.test.js', line: 10, message: ['database unreachable'] },
        ]);
        assert.equal(report.count, summary(text, /^Tests:\s+(\d+) failed/));
        assertNoNoise(report.failures);
        const repeated = `${text}\nSummary of all failing tests\n${text.slice(text.indexOf('  ●'), text.indexOf('Test Suites:'))}`;
        assert.equal(read(repeated).report()!.count, report.count, 'the failures jest repeats after many files are not counted twice');
    });

    it('vitest: each "FAIL file > name" failure with its message without the diff, where its "❯" line points', () => {
        const text = sample('vitest');
        const report = read(text).report()!;
        assert.equal(report.format, 'vitest');
        assert.deepEqual(report.failures, [
            { name: 'calc > multiplies', file: 'test/calc.test.js', line: 6, message: ['expected 6 to be 7 // Object.is equality'] },
            { name: 'throws a plain error', file: 'test/calc.test.js', line: 10, message: ['Error: database unreachable'] },
        ]);
        assert.equal(report.count, summary(text, /^\s+Tests\s+(\d+) failed/));
        assertNoNoise(report.failures);
    });

    for (const [name, passed, failed] of [
        ['node-spec', /^ℹ pass (\d+)/, [/^ℹ fail (\d+)/, /^ℹ cancelled (\d+)/]],
        ['node-tap', /^# pass (\d+)/, [/^# fail (\d+)/, /^# cancelled (\d+)/]],
        ['mocha-spec', /^\s*(\d+) passing/, [/^\s*(\d+) failing/]],
        ['jest', /^Tests:.*?(\d+) passed/, [/^Tests:\s+(\d+) failed/]],
        ['vitest', /^\s+Tests\s.*?(\d+) passed/, [/^\s+Tests\s+(\d+) failed/]],
    ] as const) {
        it(`${name}: tests are counted as they end, as the runner counts them (suites are not tests)`, () => {
            const text = sample(name);
            const lines = text.split('\n');
            const summaryAt = lines.findIndex(line => /^(ℹ|#) tests \d|^\s*\d+ passing|^Tests:|^\s+Tests\s/.test(line));
            // Before the runner's summary, every test has ended: the counts are complete there.
            const counts = read(lines.slice(0, summaryAt).join('\n')).counts();
            assert.deepEqual(counts, { passed: summary(text, passed), failed: failed.reduce((sum, pattern) => sum + summary(text, pattern), 0) });
            assert.deepEqual(read(text).counts(), counts, 'the failures told again after the summary are not counted twice');
        });
    }

    it('output in no known format: no tests counted, no report', () => {
        const tests = read('compiling 3 files\nerror TS2345: nope\n1 error\n');
        assert.equal(tests.counts(), undefined);
        assert.equal(tests.report(), undefined);
    });

    it('the scan of a log reads the failures wherever they are, coloured or after a long run of other lines', async () => {
        const text = sample('node-tap');
        const filler = Array.from({ length: 30_000 }, (_, i) => `building module ${i}`).join('\n');
        const expected = read(text).report();
        const path = join(dir, 'long.log');
        writeFileSync(path, `${filler}\n${text}`);
        assert.deepEqual((await scanLog(path)).tests, expected, 'after 30 000 lines no pattern matches');
        assert.deepEqual((await scanLog(path, /NEVER MATCHES/)).tests, expected, 'with a failure pattern that matches none of its lines');
        const coloured = sample('node-spec').replace(/^([✔✖▶])/gm, '\x1b[31m$1\x1b[39m');
        assert.deepEqual(scanText(coloured).tests, read(sample('node-spec')).report());
    });
});
