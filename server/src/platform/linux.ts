import { join } from 'node:path';
import { procProcessRunning, procProcessTable } from './procTable.js';
import { posixKeptPlan } from './keeper.js';
import type { Platform } from './platform.js';
import { posixPrivateDirProblem, posixShellArgv, posixSpawnPlan } from './posix.js';

/** Linux (and any OS not named): /proc for descendants and their environments, process groups for stops, XDG for data. */
export const linuxPlatform: Platform = {
    os: 'linux',
    shellArgv: posixShellArgv,
    shellRefusal: () => undefined,
    spawnPlan: posixSpawnPlan,
    keptPlan: posixKeptPlan,
    processTable: procProcessTable,
    processRunning: procProcessRunning,
    dataDir(env, home) {
        // The XDG spec ignores a relative value.
        const state = env.XDG_STATE_HOME && env.XDG_STATE_HOME.startsWith('/') ? env.XDG_STATE_HOME : join(home, '.local', 'state');
        return join(state, 'mcp-tasks');
    },
    privateDirProblem: posixPrivateDirProblem,
};
