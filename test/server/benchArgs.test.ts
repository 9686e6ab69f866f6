// `npm run bench` command line: --help prints every flag and runs nothing; only --write touches
// the tracked docs/BENCHMARKS.md; bad flags get a clear error before anything starts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
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
