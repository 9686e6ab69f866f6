// The flags the documentation lists are the flags the programs accept: docs/CLI.md's table is the one
// the flag table writes (and names the flags `dist/server.js --help` prints, both ways), every server
// command line written in the docs uses flags --help knows, and docs/BENCHMARKS.md's command table
// matches `npm run bench -- --help`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { CLI_DOC, withFlagTable } from '../../scripts/cliDocs.js';
import { envName } from '../../server/src/flags/spec.js';
import { FLAGS } from '../../server/src/flags/table.js';
import { Env } from '../../server/src/contract.js';
import { SERVER_JS } from '../support/helpers.js';

const root = resolve(__dirname, '../..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** The options a usage text lists: each indented line that starts with a flag (`-h, --help` gives both). */
function helpFlags(usage: string): Set<string> {
    const flags = new Set<string>();
    for (const [, names] of usage.matchAll(/^ {2}((?:--?[a-z][a-z-]*(?:, )?)+)/gm)) {
        for (const flag of names!.split(', ')) {
            flags.add(flag.trim());
        }
    }
    return flags;
}

function usageOf(args: string[]): string {
    const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    return run.stdout;
}

/** Flags in the first cell of each row of the first table under `heading`. */
function tableFlags(markdown: string, heading: string, cell: 'first' | 'all' = 'first'): Set<string> {
    const section = markdown.slice(markdown.indexOf(heading));
    assert.ok(section.length > 0 && markdown.includes(heading), `no ${heading}`);
    const rows = /((?:^\|.*\n)+)/m.exec(section)![1]!.split('\n').slice(2).filter(Boolean);
    const flags = new Set<string>();
    for (const row of rows) {
        const text = cell === 'first' ? row.split(/(?<!\\)\|/)[1]! : row;
        for (const [flag] of text.matchAll(/(?<![\w-])--?[a-z][a-z-]*/g)) {
            flags.add(flag);
        }
    }
    return flags;
}

const sorted = (set: Set<string>) => [...set].sort();

describe('documented flags', () => {
    const serverHelp = helpFlags(usageOf([SERVER_JS, '--help']));

    it('--help parses into the flags the server accepts', () => {
        for (const flag of ['--stdio', '--http', '--token', '--store', '--version', '-h', '--help']) {
            assert.ok(serverHelp.has(flag), `${flag} not found in --help`);
        }
    });

    it('docs/CLI.md lists exactly the flags --help prints', () => {
        assert.deepEqual(sorted(tableFlags(read('docs/CLI.md'), '## Flags')), sorted(serverHelp));
    });

    it("docs/CLI.md's flag table is the one server/src/flags/table.ts writes (npm run docs:cli)", () => {
        const page = readFileSync(CLI_DOC, 'utf8');
        assert.ok(page === withFlagTable(page), 'docs/CLI.md differs from the flag table: run npm run docs:cli');
    });

    it('every flag but --help and --version has its MCP_TASKS_ variable in --help; the variables the extension sets are among them', () => {
        const usage = usageOf([SERVER_JS, '--help']).replace(/\s+/g, ' ');
        const variables = FLAGS.map(envName).filter(Boolean);
        assert.equal(variables.length, FLAGS.length - 2);
        for (const variable of variables) {
            assert.ok(usage.includes(`env ${variable}`), `${variable} in --help`);
        }
        for (const variable of Object.values(Env)) {
            assert.ok(variables.includes(variable), `${variable} is a flag's variable`);
        }
    });

    it('every server command line in the docs uses flags --help knows', () => {
        const files = ['README.md', 'server/README.md', ...readdirSync(join(root, 'docs')).filter(f => f.endsWith('.md')).map(f => `docs/${f}`)];
        let lines = 0;
        for (const file of files) {
            for (const line of read(file).split('\n')) {
                const command = /^.*(?:mcp-tasks-server|(?<![\w/.-])mcp-tasks(?= +-)|@mcp-tasks\/server(?:@[\w.]+)?|dist\/server\.js|\.tgz)\s(.*)$/.exec(line);
                // The Inspector's and the bench's own flags follow the server's on their command lines.
                if (!command || /npm install|npm run bench|import |mcp-inspector/.test(line)) {
                    continue;
                }
                lines++;
                // After a lone `--` (--wrap -- COMMAND …) the flags are the wrapped server's.
                const ours = command[1]!.replace(/\s#.*$/, '').split(/(?<=^|\s|")--(?=\s|"|$)/)[0]!;
                for (const [flag] of ours.matchAll(/(?<=^|\s|\[|`|")--?[a-z][a-z-]*/g)) {
                    assert.ok(serverHelp.has(flag), `${file}: ${flag} is not a server flag, in: ${line.trim()}`);
                }
            }
        }
        assert.ok(lines > 10, `only ${lines} command lines found`);
    });

    it('every npx line in the docs that runs a tarball passes it with -p (npx runs a path given as its command as a program)', () => {
        const files = ['README.md', 'server/README.md', ...readdirSync(join(root, 'docs')).filter(f => f.endsWith('.md')).map(f => `docs/${f}`)];
        for (const file of files) {
            for (const line of read(file).split('\n').filter(l => /\bnpx\b.*\.tgz\b/.test(l))) {
                assert.match(line, /\bnpx (?:-y )?(?:-p|--package)[ =]\S+\.tgz\b.* mcp-tasks(?:-server)?\b/, `${file}: ${line.trim()}`);
            }
        }
    });

    it('docs/BENCHMARKS.md names exactly the flags `npm run bench -- --help` prints', () => {
        const benchHelp = helpFlags(usageOf(['--import', 'tsx', 'bench/run.ts', '--help']));
        assert.ok(benchHelp.has('--write') && benchHelp.has('--help'), sorted(benchHelp).join(' '));
        benchHelp.delete('-h');
        assert.deepEqual(sorted(tableFlags(read('docs/BENCHMARKS.md'), '| command |', 'all')), sorted(benchHelp));
    });
});
