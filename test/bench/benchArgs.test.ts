// `npm run bench` command line: --help prints every flag and runs nothing; only --write touches
// the tracked docs/BENCHMARKS.md; bad flags get a clear error before anything starts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { writeReport } from '../../bench/lib/report.js';
import { parseArgs, RESULTS_DIR } from '../../bench/lib/settings.js';

const root = resolve(__dirname, '../..');
const FLAGS = ['--help', '--quick', '--only', '--client', '--rounds', '--ours', '--vs', '--write'];

function bench(...args: string[]) {
    return spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
}

/** What the bench could write: the tracked report and the untracked results folder. */
function written(): string {
    const results = join(root, RESULTS_DIR);
    return readFileSync(join(root, 'docs/BENCHMARKS.md'), 'utf8') + '\0' + (existsSync(results) ? readdirSync(results).join(',') : '');
}

describe('npm run bench command line', () => {
    it('--help prints usage with every flag, exits 0, and runs and writes nothing', () => {
        const before = written();
        for (const flag of ['--help', '-h']) {
            const run = bench(flag);
            assert.equal(run.status, 0, run.stderr);
            assert.match(run.stdout, /^Usage: npm run bench/);
            for (const name of FLAGS) {
                assert.ok(run.stdout.includes(name), `usage lacks ${name}`);
            }
            assert.ok(!run.stdout.includes('mcp-tasks bench ('), 'a measurement started');
        }
        assert.equal(written(), before);
    });

    it('names every experiment --only knows in the usage', () => {
        const help = bench('--help').stdout;
        const run = bench('--only', 'nope');
        assert.equal(run.status, 2);
        const known = /known: ([\w, ]+)\)/.exec(run.stderr)?.[1]?.split(', ');
        assert.ok(known && known.length > 5, run.stderr);
        for (const id of known) {
            assert.match(help, new RegExp(`\\b${id}\\b`), `usage lacks experiment ${id}`);
        }
    });

    it('rewrites the tracked report only with --write, and only for a full run of this build', () => {
        assert.equal(parseArgs([]).write, false);
        assert.equal(parseArgs(['--quick']).write, false);
        assert.equal(parseArgs(['--write']).write, true);
        assert.throws(() => parseArgs(['--write', '--only', 'http']), /--write records a full run/);
        assert.throws(() => parseArgs(['--ours', 'a.js', '--write']), /--write records a full run/);
    });

    it('refuses unknown flags and bad values with a message, before running anything', () => {
        assert.throws(() => parseArgs(['--no-such-flag']), /unknown argument --no-such-flag/);
        assert.throws(() => parseArgs(['--rounds', '0']), /--rounds must be a whole number/);
        assert.throws(() => parseArgs(['--client', 'curl']), /--client must be node-http or fetch/);
        assert.throws(() => parseArgs(['--only']), /--only needs a value/);
        const before = written();
        const run = bench('--no-such-flag');
        assert.equal(run.status, 2);
        assert.match(run.stderr, /unknown argument --no-such-flag[\s\S]*Usage: npm run bench/);
        assert.equal(written(), before);
    });
});

describe('docs/BENCHMARKS.md generated block', () => {
    it('--write replaces only the block between the markers and keeps the hand-written method and goals', () => {
        const dir = mkdtempSync(join(tmpdir(), 'bench-report-'));
        try {
            const copy = join(dir, 'BENCHMARKS.md');
            copyFileSync(join(root, 'docs/BENCHMARKS.md'), copy);
            const original = readFileSync(copy, 'utf8');
            const [before, after] = [original.slice(0, original.indexOf('<!-- bench:begin')), original.slice(original.indexOf('<!-- bench:end -->'))];
            assert.match(before, /## Method/);
            assert.match(after, /## Goals/);
            writeReport(copy, '## Latest run (test)', 'a preamble that must not be used');
            const text = readFileSync(copy, 'utf8');
            assert.ok(text.startsWith(before) && text.endsWith(after), 'the text outside the markers changed');
            assert.match(text, /<!-- bench:begin[^\n]*-->\n## Latest run \(test\)\n<!-- bench:end -->/);
            assert.equal(text.split('<!-- bench:begin').length, 2, 'one generated block');
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
