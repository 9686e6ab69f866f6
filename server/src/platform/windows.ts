import { existsSync } from 'node:fs';
import { win32 } from 'node:path';
import { cmdQuote, cmdRefusal, cmdSlashC } from './cmdLine.js';
import type { Platform, SpawnPlan } from './platform.js';
import { windowsProcessTable, type WindowsProcessDeps } from './windowsProcesses.js';

const BATCH = /\.(cmd|bat)$/i;
const SHELL = 'cmd.exe';

/** A variable of a Windows environment, whatever its case there (`Path`, `PATH`). */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
    const key = Object.keys(env).find(k => k.toUpperCase() === name);
    return key === undefined ? undefined : env[key];
}

/**
 * The program a user typing `name` in cmd.exe would run: a bare name is looked up on PATH with each
 * of PATHEXT's extensions (so `npm` is npm.cmd). The working directory is not searched, unlike
 * cmd.exe: a project's own `npm.cmd` must not stand in for the user's. Undefined when none is there.
 */
export function resolveProgram(name: string, env: NodeJS.ProcessEnv, exists: (path: string) => boolean): string | undefined {
    if (/[\\/:]/.test(name)) {
        return undefined;
    }
    const exts = (envValue(env, 'PATHEXT') || '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean);
    const hasExt = exts.some(ext => name.toLowerCase().endsWith(ext.toLowerCase()));
    for (const dir of (envValue(env, 'PATH') ?? '').split(';').filter(Boolean)) {
        for (const candidate of hasExt ? [name] : exts.map(ext => name + ext.toLowerCase())) {
            const path = win32.join(dir, candidate);
            if (exists(path)) {
                return path;
            }
        }
    }
    return undefined;
}

function isShell(argv: readonly string[]): boolean {
    return argv[0] === SHELL && argv[1] === '/d' && argv[2] === '/s' && argv[3] === '/c';
}

/**
 * Windows: `shell: true` runs in cmd.exe with each parameter appended in double quotes (cmd.exe
 * has no `$1`; a value it cannot carry is refused); a batch file (npm.cmd) is run through cmd.exe
 * the same way, since Node refuses to start one without a shell; every child is started with its
 * console window hidden and outside any new process group (Windows has none to signal).
 */
export function makeWindowsPlatform(deps: { exists?: (path: string) => boolean; processes?: WindowsProcessDeps } = {}): Platform {
    const exists = deps.exists ?? existsSync;
    const processTable = windowsProcessTable(deps.processes);
    return {
        os: 'win32',
        shellArgv(script, _name, params) {
            return [SHELL, '/d', '/s', '/c', [script, ...params.map(cmdQuote)].join(' ')];
        },
        shellRefusal: cmdRefusal,
        spawnPlan(argv, env): SpawnPlan {
            const options = { detached: false, windowsHide: true };
            const comspec = envValue(env, 'COMSPEC') || SHELL;
            if (isShell(argv)) {
                return { file: comspec, args: cmdSlashC(argv[4]!), options: { ...options, windowsVerbatimArguments: true } };
            }
            const program = resolveProgram(argv[0]!, env, exists) ?? argv[0]!;
            if (BATCH.test(program)) {
                const line = [`"${program}"`, ...argv.slice(1).map(cmdQuote)].join(' ');
                return { file: comspec, args: cmdSlashC(line), options: { ...options, windowsVerbatimArguments: true } };
            }
            return { file: program, args: argv.slice(1), options };
        },
        processTable,
        processRunning: pid => processTable.signal(pid, 0),
        dataDir: (env, home) => win32.join(envValue(env, 'LOCALAPPDATA') || win32.join(home, 'AppData', 'Local'), 'mcp-tasks'),
        // Mode bits mean nothing there: a folder under the user's profile is closed to others by its inherited ACL.
        privateDirProblem: () => undefined,
    };
}

export const windowsPlatform: Platform = makeWindowsPlatform();
