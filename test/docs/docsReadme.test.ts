// What the README states about the repository, read from the files that decide it: its badges
// against package.json, the counts it spells out against the code, and the blocks the fresh-clone test runs (e2e/freshClone.test.ts, which
// also measures the .vsix size the README quotes) are marked the one way that test reads.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { STEPS } from '../../scripts/demo/steps.js';
import { defaultTools } from '../../server/src/demo/tools.js';
import { readmeSteps } from '../support/markdown.js';

const ROOT = resolve(__dirname, '../..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string; engines: { node: string; vscode: string } };

/** shields.io static badges: label and message of each `img.shields.io/badge/LABEL-MESSAGE-COLOR`. */
function badges(markdown: string): Map<string, string> {
    const found = new Map<string, string>();
    for (const [, path] of markdown.matchAll(/https:\/\/img\.shields\.io\/badge\/([^)\s"]+)/g)) {
        // `--` is a literal dash and `_` a space; the last part is the colour.
        const parts = path!.replace(/--/g, '\0').split('-').map(part => decodeURIComponent(part.replace(/\0/g, '-').replace(/_/g, ' ')));
        assert.equal(parts.length, 3, path);
        found.set(parts[0]!, parts[1]!);
    }
    return found;
}

describe('README.md', () => {
    it('every badge says what package.json says', () => {
        const shown = badges(readme);
        assert.deepEqual(Object.fromEntries(shown), { license: pkg.license, node: pkg.engines.node, 'VS Code': pkg.engines.vscode });
    });

    it('marks the install, package, demo and start blocks for the fresh-clone test, each a bash block', () => {
        const steps = readmeSteps(readme);
        assert.deepEqual(
            steps.map(step => step.kind),
            ['run', 'run', 'run', 'server'],
        );
        assert.match(steps.at(-1)!.script, /^npm start\b/);
        // The first screen holds the one command to try it, and the fresh-clone test runs it first.
        assert.match(steps[0]!.script, /^npm ci && npm run demo\b/);
        assert.ok(steps[0]!.line <= 25, `the command to try it is on line ${steps[0]!.line}, below the first screen`);
        assert.throws(() => readmeSteps('<!-- readme-test: srever -->\n```bash\nnpm start\n```\n'), /readme-test: srever/);
    });

    it('names the lowest Node.js and VS Code versions package.json accepts', () => {
        // The lowest version a range admits: its smallest `^X.Y.Z` or `>=X.Y.Z`, written X.Y (X.Y.Z when Z is not 0).
        const lowest = (range: string) =>
            range
                .split('||')
                .map(part => /(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(part)!.slice(1).map(n => Number(n ?? 0)))
                .sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!)[0]!
                .join('.')
                .replace(/\.0$/, '');
        assert.match(readme, new RegExp(`Node\\.js ${lowest(pkg.engines.node).replace(/\./g, '\\.')} or later`));
        assert.match(readme, new RegExp(`VS Code ${lowest(pkg.engines.vscode).replace(/\./g, '\\.')} or later`));
    });

    it('quotes the .vsix size in the form the fresh-clone test measures', () => {
        assert.match(readme, /mcp-tasks-[\d.]+\.vsix \(about \d+ KB\)/);
    });

    it('counts the demo tools and the demo steps as the code does', () => {
        const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
        const spelled = (pattern: RegExp) => WORDS.indexOf((pattern.exec(readme) ?? assert.fail(`the README no longer says ${pattern}`))[1]!);
        assert.equal(spelled(/the (\w+) demonstration tools/), defaultTools().filter(tool => !tool.hidden).length);
        assert.equal(spelled(/the protocol in (\w+) steps/), STEPS.length);
    });
});
