// npm run package: `vsce package --no-dependencies` (which builds the production bundles) on the
// Node that runs npm. vsce 4 needs Node 22 or later, as does everything in this repo (package.json
// engines.node): an older Node gets a plain message instead of a download.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { unsupportedNode } from './nodeRange.mjs';
import { writeVsixReadme } from './vsixReadme.mjs';

const root = resolve(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
const out = resolve(root, `mcp-tasks-${version}.vsix`);

const problem = unsupportedNode();
if (problem) {
    console.error(`npm run package: ${problem}`);
    process.exit(1);
}

const run = (command, args) => {
    const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) {
        process.exit(result.status ?? 1);
    }
};

// vsce runs the production build itself (the vscode:prepublish script) before it packs.
const vsce = resolve(root, 'node_modules/@vscode/vsce/vsce');
// The Marketplace page and the Extensions view show the editor users' README, not the
// repository's. vsce rewrites its relative links to the repository (package.json repository.url):
// the extension details page draws only https: images, so a relative one showed as its alt text.
const readme = writeVsixReadme(root);
run(process.execPath, [vsce, 'package', '--no-dependencies', '--readme-path', readme, '--out', out]);
console.log(`packaged ${out} (${(statSync(out).size / 1024).toFixed(0)} KB)`);
