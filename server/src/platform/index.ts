import { darwinPlatform } from './darwin.js';
import { linuxPlatform } from './linux.js';
import type { OsName, Platform } from './platform.js';
import { windowsPlatform } from './windows.js';

export type { OsName, Platform, SpawnPlan } from './platform.js';

/** The implementation for `os`; an OS the server does not know (the BSDs, AIX) is run as Linux is, with what it lacks reported where it shows. */
export function platformFor(os: NodeJS.Platform | OsName): Platform {
    if (os === 'win32') {
        return windowsPlatform;
    }
    if (os === 'darwin') {
        return darwinPlatform;
    }
    return linuxPlatform;
}

/** The platform this server runs on: the one place that reads process.platform. */
export const currentPlatform: Platform = platformFor(process.platform);

/** Whether process `pid` still runs, as this OS can tell (the tests' way to watch a process end). */
export const processRunning = (pid: number): boolean => currentPlatform.processRunning(pid);
