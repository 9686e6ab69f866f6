import { join } from 'node:path';
import { posixKeptPlan } from './keeper.js';
import type { Platform } from './platform.js';
import { posixPrivateDirProblem, posixShellArgv, posixSpawnPlan } from './posix.js';
import { psProcessRunning, psProcessTable } from './psTable.js';

/** macOS: POSIX spawning and process groups as on Linux; no /proc, so `ps` lists processes; data under ~/Library/Application Support. */
export const darwinPlatform: Platform = {
    os: 'darwin',
    shellArgv: posixShellArgv,
    shellRefusal: () => undefined,
    spawnPlan: posixSpawnPlan,
    keptPlan: posixKeptPlan,
    processTable: psProcessTable(),
    processRunning: psProcessRunning,
    dataDir: (_env, home) => join(home, 'Library', 'Application Support', 'mcp-tasks'),
    privateDirProblem: posixPrivateDirProblem,
};
