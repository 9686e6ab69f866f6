// `npm start` and `npm run demo`: build dist/ only when a source changed since the last build, so a
// second start takes a moment instead of a full esbuild run. Stale means a bundle is missing, or a
// file the bundles are made from (server/src, extension, the build script, the package manifests)
// is newer than the oldest bundle.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUNDLES = ['dist/server.js', 'dist/server-main.js', 'dist/redis-client.js', 'dist/gateway-client.js', 'dist/extension.js'];
export const INPUTS = ['server/src', 'extension', 'esbuild.mjs', 'scripts/redisClientApart.mjs', 'package.json', 'package-lock.json'];

/** Newest modification time under `path` (a file, or a folder walked whole); 0 when it is missing. */
function newest(path) {
    let stat;
    try {
        stat = statSync(path);
    } catch {
        return 0;
    }
    if (!stat.isDirectory()) {
        return stat.mtimeMs;
    }
    return Math.max(stat.mtimeMs, ...readdirSync(path).map(name => newest(join(path, name))));
}

/** Why `root`'s bundles must be built again, or undefined when they are up to date. */
export function staleBecause(root) {
    let oldest = Infinity;
    for (const bundle of BUNDLES) {
        try {
            oldest = Math.min(oldest, statSync(resolve(root, bundle)).mtimeMs);
        } catch {
            return `${bundle} is missing`;
        }
    }
    for (const input of INPUTS) {
        if (newest(resolve(root, input)) > oldest) {
            return `${input} changed since the last build`;
        }
    }
    return undefined;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
    const root = resolve(import.meta.dirname, '..');
    const why = staleBecause(root);
    if (why) {
        process.stderr.write(`Building dist/ (${why})…\n`);
        const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: root, stdio: 'inherit' });
        process.exit(build.status ?? 1);
    }
}
