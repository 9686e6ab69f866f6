/**
 * Installs a pinned host from npm on demand into the cache folder
 * (`${XDG_CACHE_HOME:-~/.cache}/mcp-tasks-hosts/<host>-<version>`, or `$MCP_TASKS_HOSTS_CACHE`).
 * Like test/vscode-host/install.mjs it builds in `<home>.partial-<pid>` and renames that into place
 * with a marker inside, so an interrupted install never looks done and two installers never share
 * a folder. `npx tsx test/hosts/hostInstall.ts [host ...]` installs ahead of time.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOSTS, type HostName, type HostPackage } from './hostList.js';
import { processRunning } from '../../server/src/platform/index.js';

const MARKER = '.install-complete';

export function hostsCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
    if (env.MCP_TASKS_HOSTS_CACHE) {
        return env.MCP_TASKS_HOSTS_CACHE;
    }
    return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mcp-tasks-hosts');
}

export interface InstalledHost {
    host: HostPackage;
    home: string;
    /** Absolute path of the entry point (see HostPackage.runWithNode). */
    entry: string;
    /** How long this call spent installing; 0 when the cache already had it. */
    installMs: number;
}

function log(message: string): void {
    process.stderr.write(`[hosts] ${message}\n`);
}

/** Staging folders whose installer died are garbage (the name ends in that installer's pid). */
function removeAbandonedStaging(home: string): void {
    const parent = dirname(home);
    const prefix = `${home.slice(parent.length + 1)}.partial-`;
    for (const name of readdirSync(parent)) {
        if (name.startsWith(prefix) && !processRunning(Number(name.slice(prefix.length)))) {
            rmSync(join(parent, name), { recursive: true, force: true });
        }
    }
}

/**
 * The environment for the inner npm: without what an outer npm (`npm run test:hosts`) leaves in it
 * (its whole config as `npm_config_*`), with our own npm cache inside the cache folder, and with
 * the Node running us first on PATH so postinstall scripts run on it, not the machine's older one.
 */
function npmEnv(root: string): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) {
        if (!/^npm_/i.test(key) && key !== 'INIT_CWD' && key !== 'NODE' && value !== undefined) {
            env[key] = value;
        }
    }
    return {
        ...env,
        PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
        npm_config_cache: join(root, 'npm-cache'),
        npm_config_update_notifier: 'false',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_yes: 'true',
    };
}

function runNpm(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
    return new Promise((resolve, reject) => {
        // npm's chatter goes to our stderr: a test's stdout is node:test's report.
        const npm = join(dirname(process.execPath), 'npm');
        const child = spawn(existsSync(npm) ? npm : 'npm', args, { cwd, env, stdio: ['ignore', 2, 2] });
        child.on('error', reject);
        child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`npm ${args.join(' ')} exited with ${signal ?? code}`))));
    });
}

/** Installs `name` unless the cache has it; rejects with npm's failure otherwise. */
export async function ensureHost(name: HostName, root = hostsCacheRoot()): Promise<InstalledHost> {
    const host = HOSTS[name];
    const { home, entry, installMs } = await ensurePinnedPackage({ folder: `${host.name}-${host.version}`, spec: host.spec, entry: host.entry }, root);
    return { host, home, entry, installMs };
}

/** A pinned npm package to install into `<root>/<folder>`, and the file that must be there after. */
export interface PinnedPackage {
    folder: string;
    /** What `npm install` gets, with its exact version. */
    spec: string;
    /** Relative to the install folder. */
    entry: string;
}

/**
 * Installs `pkg` unless `root` has it (also used by the bench for the proxies it compares the
 * gateway with); rejects with npm's failure otherwise.
 */
export async function ensurePinnedPackage(pkg: PinnedPackage, root: string): Promise<{ home: string; entry: string; installMs: number }> {
    const home = join(root, pkg.folder);
    const entry = join(home, pkg.entry);
    const done = () => existsSync(join(home, MARKER)) && existsSync(entry);
    mkdirSync(root, { recursive: true });
    removeAbandonedStaging(home);
    if (done()) {
        return { home, entry, installMs: 0 };
    }
    const staging = `${home}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    // Our own package.json keeps npm from climbing up into some parent project.
    writeFileSync(join(staging, 'package.json'), '{ "private": true }\n');
    const started = Date.now();
    log(`installing ${pkg.spec} into ${home} ...`);
    try {
        await runNpm(['install', '--no-save', '--no-package-lock', '--omit=dev', pkg.spec], staging, npmEnv(root));
        if (!existsSync(join(staging, pkg.entry))) {
            throw new Error(`npm installed ${pkg.spec} but ${pkg.entry} is missing (no linux-x64 binary?)`);
        }
    } catch (error) {
        // A failed install is useless (the next try starts afresh) and weighs hundreds of MB.
        rmSync(staging, { recursive: true, force: true });
        throw error;
    }
    writeFileSync(join(staging, MARKER), JSON.stringify({ spec: pkg.spec, finished: new Date().toISOString() }) + '\n');
    if (done()) {
        // Another installer won the race while we worked.
        rmSync(staging, { recursive: true, force: true });
    } else {
        // A folder without a marker is a leftover of an older, interrupted layout.
        rmSync(home, { recursive: true, force: true });
        renameSync(staging, home);
    }
    const installMs = Date.now() - started;
    log(`installed ${pkg.spec} in ${Math.round(installMs / 1000)} s`);
    return { home, entry, installMs };
}

/** Installs the named hosts (all by default), one after the other: parallel npm installs would fight over two cores. */
async function main(names: string[]): Promise<void> {
    for (const name of names) {
        if (!(name in HOSTS)) {
            throw new Error(`unknown host ${name}; known: ${Object.keys(HOSTS).join(', ')}`);
        }
    }
    for (const name of names as HostName[]) {
        try {
            const installed = await ensureHost(name);
            log(`${name}: ${installed.entry}${installed.installMs === 0 ? ' (cached)' : ''}`);
        } catch (error) {
            log(`${name}: install failed: ${(error as Error).message}`);
            process.exitCode = 1;
        }
    }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
    main(process.argv.length > 2 ? process.argv.slice(2) : Object.keys(HOSTS)).catch((error: Error) => {
        log(error.message);
        process.exitCode = 2;
    });
}
