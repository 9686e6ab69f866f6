// Every repository path the docs name exists. The rule, precisely:
// - Files: every Markdown file git tracks, except CHANGELOG.md (a history names files as they
//   were) and the VS Code test fixtures' workspace READMEs (test/integration/fixtures/).
// - Links: every relative link or image target outside code (`[x](docs/HOSTS.md)`) resolves, from
//   the file's own folder, to a tracked file or folder; a `#fragment` (also a bare `(#x)`) must be
//   a heading of the target Markdown file (GitHub's slug) or an `<a id>` in it.
// - Code spans: every inline code span in prose that is one path-like word (letters, digits,
//   `._-/`) with a `/`, whose last part is a file name with an extension or that ends in `/` (a
//   folder), optionally followed by `#anchor`, and that starts with a top-level entry of the
//   repository (`server/`, `test/`, `docs/`, `scripts/`, …) names a tracked file or folder, read
//   from the repository root. `.vscode/` is left out: the docs use it for the user's workspace
//   (`.vscode/mcp.json`), and method names (`server/discover`) have no extension. Paths git ignores (build output such as `bench/results/`) pass
//   if .gitignore names them; paths under untracked top-level folders (`dist/`, `out/`,
//   `node_modules/`) are never read as repository paths, nor are spans with placeholders
//   (`<name>`, `*`, `…`).
// - Fenced code blocks: each word of a block (split at spaces, quotes, brackets, `=` and commas)
//   that the code-span rule reads as a path, as in `node test/vscode-host/run.mjs`.
// Paths relative to a subfolder (`rpc/connection.ts` for server/src/rpc/connection.ts) are out of
// the rule: they cannot be told from prose. Write the full path where it matters.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { anchors, codeBlocks, codeSpans, linkTargets, prose } from '../support/markdown.js';

const ROOT = resolve(__dirname, '../..');
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' });

const tracked = new Set(git('ls-files', '-z', '--cached', '--others', '--exclude-standard').split('\0').filter(Boolean));
const folders = new Set([...tracked].flatMap(file => file.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
const topLevel = new Set([...tracked].map(file => file.split('/')[0]!));
const exists = (path: string) => tracked.has(path) || folders.has(path);
const ignored = (path: string) => {
    try {
        git('check-ignore', '-q', '--no-index', path);
        return true;
    } catch {
        return false;
    }
};

const DOCS = [...tracked].filter(file => file.endsWith('.md') && file !== 'CHANGELOG.md' && !file.startsWith('test/integration/fixtures/'));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** A code span that reads as one repository path, or undefined. */
function repoPath(span: string): { path: string; folder: boolean; anchor?: string } | undefined {
    const match = /^([\w.-]+(?:\/[\w.-]+)*)(\/|\/[\w-]+\.\w+)(?:#([\w-]+))?$/.exec(span);
    const top = match?.[1]!.split('/')[0];
    if (!match || !top || top === '.vscode' || !topLevel.has(top)) {
        return undefined;
    }
    return { path: match[1]! + match[2]!.replace(/\/$/, ''), folder: match[2] === '/', anchor: match[3] };
}

function checkAnchor(file: string, anchor: string | undefined): string | undefined {
    if (!anchor || !file.endsWith('.md')) {
        return undefined;
    }
    return anchors(read(file)).has(anchor) ? undefined : `#${anchor} is not a heading or <a id> of ${file}`;
}

describe('repository paths named in the docs', () => {
    it('the rule reads these files', () => {
        for (const file of ['README.md', 'SECURITY.md', 'extension/README.md', 'docs/BENCHMARKS.md', 'test/vscode-host/README.md']) {
            assert.ok(DOCS.includes(file), file);
        }
        assert.ok(!DOCS.includes('CHANGELOG.md'));
    });

    it('the rule tells paths from other code spans', () => {
        assert.deepEqual(repoPath('server/src/cli.ts'), { path: 'server/src/cli.ts', folder: false, anchor: undefined });
        assert.deepEqual(repoPath('docs/CLI.md#flags'), { path: 'docs/CLI.md', folder: false, anchor: 'flags' });
        assert.deepEqual(repoPath('test/e2e/'), { path: 'test/e2e', folder: true, anchor: undefined });
        const others = ['dist/server.js', 'npm run build', 'rpc/connection.ts', 'server/src/<folder>/X.ts', 'server/discover', '.vscode/mcp.json', 'tasks/get'];
        for (const other of [...others, 'a/b', '--store redis://…', 'test/server']) {
            assert.equal(repoPath(other), undefined, other);
        }
        assert.deepEqual([...anchors('# Use it in VS Code\n## Use it in VS Code\n<a id="floods"></a>\n```\n# not a heading\n```')], ['use-it-in-vs-code', 'use-it-in-vs-code-1', 'floods']);
    });

    for (const file of DOCS) {
        it(`${file}: every linked file and anchor exists`, () => {
            const problems: string[] = [];
            const text = read(file);
            for (const target of linkTargets(prose(text))) {
                if (/^[a-z][\w+.-]*:/i.test(target)) {
                    continue;
                }
                const [path, anchor] = target.split('#') as [string, string | undefined];
                const resolved = path ? normalize(relative(ROOT, resolve(ROOT, dirname(file), decodeURIComponent(path)))) : file;
                if (!exists(resolved)) {
                    problems.push(`link ${target}: ${resolved} does not exist`);
                    continue;
                }
                const wrong = checkAnchor(resolved, anchor);
                if (wrong) {
                    problems.push(`link ${target}: ${wrong}`);
                }
            }
            assert.deepEqual(problems, []);
        });

        it(`${file}: every repository path in code exists`, () => {
            const problems: string[] = [];
            const text = read(file);
            const words = codeBlocks(text).flatMap(block => block.body.split(/[\s"'`=(),[\]{}]+/));
            for (const span of [...codeSpans(prose(text)), ...words]) {
                const named = repoPath(span);
                if (!named || (!exists(named.path) && ignored(named.folder ? `${named.path}/` : named.path))) {
                    continue;
                }
                if (!exists(named.path)) {
                    problems.push(`\`${span}\` does not exist`);
                    continue;
                }
                const wrong = checkAnchor(named.path, named.anchor);
                if (wrong) {
                    problems.push(`\`${span}\`: ${wrong}`);
                }
            }
            assert.deepEqual(problems, []);
        });
    }
});
