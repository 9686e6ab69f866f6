// npm run pack:server: builds and packs @mcp-tasks/server (its prepack builds it), and prints the
// line an MCP host runs to start that tarball, for hosts on this machine before it is published.
// The tarball's name carries a hash of its bytes: npx caches what it installs by path, so a new
// build must get a new path. --out DIR packs there instead of dist/ (the tests use a temp folder).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(import.meta.dirname, '..');

/** Packs the server into `out`; returns the tarball's absolute path and the package's engines.node. */
export function packServer(out = join(root, 'dist')) {
    mkdirSync(out, { recursive: true });
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const [packed] = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', out], { cwd: join(root, 'server'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
    const tarball = join(out, packed.filename);
    const hash = createHash('sha256').update(readFileSync(tarball)).digest('hex').slice(0, 8);
    const named = tarball.replace(/\.tgz$/, `-${hash}.tgz`);
    renameSync(tarball, named);
    const { engines } = JSON.parse(readFileSync(join(root, 'server/package.json'), 'utf8'));
    return { tarball: resolve(named), node: engines.node };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
    const at = process.argv.indexOf('--out');
    const { tarball, node } = packServer(at === -1 ? undefined : resolve(process.argv[at + 1]));
    // npx runs a path given as its command as a program; a tarball goes in -p, the bin after it.
    const args = ['-y', '-p', tarball, 'mcp-tasks', '--stdio'];
    process.stdout.write(
        `Packed ${tarball}\n\n` +
            `Start it from any MCP host on this machine (Node ${node} on its PATH) with:\n\n` +
            `npx ${args.join(' ')}\n\n` +
            `or, in a JSON configuration (mcp.json, claude_desktop_config.json, …):\n\n` +
            `${JSON.stringify({ command: 'npx', args })}\n`,
    );
}
