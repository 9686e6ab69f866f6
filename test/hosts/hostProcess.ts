/**
 * Runs one host CLI to its end, bounded: a fresh temp folder holds its HOME, its working folder and
 * every file it writes; its environment is built from nothing (like `env -i`) plus what the driver
 * adds; on timeout the whole process tree (the host and the MCP servers it started) is killed.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { descendantsOf } from '../vscode-host/proc.mjs';

export interface HostDirs {
    root: string;
    home: string;
    workdir: string;
    tmp: string;
}

export function makeHostDirs(host: string): HostDirs {
    const root = mkdtempSync(join(tmpdir(), `mcp-tasks-host-${host}-`));
    const dirs = { root, home: join(root, 'home'), workdir: join(root, 'work'), tmp: join(root, 'tmp') };
    for (const dir of [dirs.home, dirs.workdir, dirs.tmp]) {
        mkdirSync(dir, { recursive: true });
    }
    return dirs;
}

/**
 * The environment every host starts from. The proxy variables point at `proxyUrl`, a proxy that
 * refuses everything (refusingProxy.ts), so a host that tries to reach anything but loopback fails
 * at once and the attempt is on record; NO_PROXY lets loopback through.
 */
export function baseEnv(dirs: HostDirs, proxyUrl: string): Record<string, string> {
    const deadProxy = proxyUrl;
    return {
        PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
        HOME: dirs.home,
        TMPDIR: dirs.tmp,
        LANG: 'C.UTF-8',
        TERM: 'dumb',
        NO_COLOR: '1',
        XDG_CONFIG_HOME: join(dirs.home, '.config'),
        XDG_DATA_HOME: join(dirs.home, '.local', 'share'),
        XDG_CACHE_HOME: join(dirs.home, '.cache'),
        XDG_STATE_HOME: join(dirs.home, '.local', 'state'),
        HTTP_PROXY: deadProxy,
        HTTPS_PROXY: deadProxy,
        http_proxy: deadProxy,
        https_proxy: deadProxy,
        NO_PROXY: '127.0.0.1,localhost',
        no_proxy: '127.0.0.1,localhost',
    };
}

export interface HostExit {
    code: number | null;
    signal: NodeJS.Signals | null;
    timedOut: boolean;
    stdout: string;
    stderr: string;
    ms: number;
}

function killAll(leader: number, pids: number[]): void {
    for (const target of [-leader, ...pids]) {
        try {
            process.kill(target, 'SIGKILL');
        } catch {
            // Already gone.
        }
    }
}

export function runHost(command: string, args: string[], options: { env: Record<string, string>; cwd: string; timeoutMs: number }): Promise<HostExit> {
    const started = Date.now();
    // Its own process group, so the host and everything it started can be killed together.
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let timedOut = false;
    // Seen while the host lives: once it exits, its orphans are reparented and no longer found.
    let tree: number[] = [];
    const watch = setInterval(() => {
        if (child.pid) {
            tree = [...new Set([...tree, ...descendantsOf(child.pid)])];
        }
    }, 500);
    const timer = setTimeout(() => {
        timedOut = true;
        if (child.pid) {
            killAll(child.pid, [...tree, ...descendantsOf(child.pid)]);
        }
    }, options.timeoutMs);
    return new Promise((resolve, reject) => {
        child.on('error', error => {
            clearTimeout(timer);
            clearInterval(watch);
            reject(error);
        });
        child.on('close', (code, signal) => {
            clearTimeout(timer);
            clearInterval(watch);
            // Whatever the host left running (an MCP server it did not stop) goes with it.
            if (child.pid) {
                killAll(child.pid, tree);
            }
            resolve({ code, signal, timedOut, stdout, stderr, ms: Date.now() - started });
        });
    });
}

export function removeHostDirs(dirs: HostDirs): void {
    rmSync(dirs.root, { recursive: true, force: true });
}
