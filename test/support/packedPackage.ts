/**
 * The npm package as a user gets it: `npm pack` of the server workspace, installed from the tarball
 * into an empty folder. One pack and one install per test file; the cases then run `npx` and `node`
 * in that folder.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import './serverState.js';

export const ROOT = resolve(__dirname, '../..');
export const SERVER_DIR = join(ROOT, 'server');

export const serverPackage = JSON.parse(readFileSync(join(SERVER_DIR, 'package.json'), 'utf8')) as { name: string; version: string; bin: Record<string, string>; peerDependencies: Record<string, string> };

/** npm and npx as a user runs them: none of the npm_* variables of an outer `npm test`. */
export function cleanEnv(): NodeJS.ProcessEnv {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
    return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' };
}

export function run(command: string, args: string[], cwd: string): string {
    const result = spawnSync(command, args, { cwd, env: cleanEnv(), encoding: 'utf8', timeout: 240_000 });
    if (result.status !== 0) {
        throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
    }
    return result.stdout;
}

export interface PackedApp {
    /** The temp folder holding the tarball and `app`; remove it when done. */
    work: string;
    /** An ESM app (`"type": "module"`) with the packed server installed. */
    app: string;
    /** The paths inside the tarball. */
    files: string[];
}

/** The version of `name` the repo installed (the npm cache has it, so installing it again needs no network). */
export function repoVersionOf(name: string): string {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

export function packAndInstall(): PackedApp {
    const work = mkdtempSync(join(tmpdir(), 'mcp-tasks-package-'));
    const app = join(work, 'app');
    mkdirSync(app);
    const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], SERVER_DIR)) as { filename: string; files: { path: string }[] }[];
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module' }));
    run('npm', ['install', '--prefer-offline', join(work, packed!.filename)], app);
    return { work, app, files: packed!.files.map(file => file.path) };
}
