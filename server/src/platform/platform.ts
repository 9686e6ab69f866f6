import type { Stats } from 'node:fs';
import type { SpawnOptions } from 'node:child_process';
import type { ProcessTable } from './processTable.js';

/** The operating systems the server knows apart; every other one is run as Linux is. */
export type OsName = 'linux' | 'darwin' | 'win32';

/** What to hand to child_process.spawn for one argv. */
export interface SpawnPlan {
    file: string;
    args: string[];
    options: Pick<SpawnOptions, 'detached' | 'windowsHide' | 'windowsVerbatimArguments'>;
}

/**
 * Everything the server does differently by operating system, in one place: nothing else in
 * server/src asks which OS it runs on. Tests build one for another OS with platformFor.
 */
export interface Platform {
    readonly os: OsName;
    /**
     * The argv of a `shell: true` command: `script` run by the OS's shell with `params` as its
     * parameters (`$1`… for sh; appended, each quoted, for cmd.exe). `name` is `$0`.
     */
    shellArgv(script: string, name: string, params: readonly string[]): string[];
    /**
     * Why `value` cannot be a parameter of a command run through this OS's shell, or undefined when it can.
     * Only cmd.exe has such values: it has no `$1`, so a parameter is part of the line it parses.
     */
    shellRefusal(value: string): string | undefined;
    /** How to start `argv` (the program found as a user typing it would find it); throws a clear Error when it cannot be started safely. */
    spawnPlan(argv: readonly string[], env: NodeJS.ProcessEnv): SpawnPlan;
    /**
     * How to start `plan` so that it can outlive the server (keeper.ts): under a keeper that keeps
     * its exit status in `statusPath` and stops it once no server has re-adopted it for
     * `windowSeconds` after the one that started it is gone. Undefined when the program is not
     * found (spawn it as it is, to fail the usual way); absent where commands cannot outlive the
     * server (Windows: they stop with it, as before).
     */
    keptPlan?(plan: SpawnPlan, env: NodeJS.ProcessEnv, cwd: string, statusPath: string, windowSeconds: number): SpawnPlan | undefined;
    /** The processes of the machine, for finding and stopping a run's descendants. */
    readonly processTable: ProcessTable;
    /** Whether process `pid` still runs (a zombie counts as gone where that can be told). */
    processRunning(pid: number): boolean;
    /** Where this user's MCP Tasks keeps its data when no folder is given. */
    dataDir(env: NodeJS.ProcessEnv, home: string): string;
    /** Why a folder holding secrets (a token file) is not private to this user, or undefined when it is (or the OS keeps it so by its ACLs). */
    privateDirProblem(stat: Stats): string | undefined;
}
