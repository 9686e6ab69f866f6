// npm run package: production bundles, then `vsce package --no-dependencies` under Node 24
// (vsce 4 refuses Node 20). Node 24 comes from npm into the same cache the test host uses.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ensureNode24 } from '../test/vscode-host/install.mjs';

const root = resolve(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
const out = resolve(root, `mcp-tasks-${version}.vsix`);

const run = (command, args, env = process.env) => {
    const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
    if (result.status !== 0) {
        process.exit(result.status ?? 1);
    }
};

run(process.execPath, ['esbuild.mjs', '--production']);
const { nodeBin } = await ensureNode24();
const vsce = resolve(root, 'node_modules/@vscode/vsce/vsce');
// No public repository yet: keep README links relative and say so, rather than invent a URL.
run(nodeBin, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', out], { ...process.env, PATH: `${dirname(nodeBin)}:${process.env.PATH}` });
console.log(`packaged ${out} (${(statSync(out).size / 1024).toFixed(0)} KB)`);
