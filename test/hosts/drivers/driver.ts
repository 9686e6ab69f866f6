import type { InstalledHost } from '../hostInstall.js';
import type { HostDirs } from '../hostProcess.js';

/** How a host starts our server: `node <abs>/dist/server.js --stdio [flags]`. */
export interface ServerCommand {
    command: string;
    args: string[];
}

export interface DriverInput {
    installed: InstalledHost;
    dirs: HostDirs;
    /** The scripted model, `http://127.0.0.1:<port>`. */
    modelUrl: string;
    server: ServerCommand;
    prompt: string;
    /** baseEnv(dirs), for the driver to extend. */
    env: Record<string, string>;
}

/** The command line and environment that run a host non-interactively; config files are written by then. */
export interface Launch {
    command: string;
    args: string[];
    env: Record<string, string>;
}

/** Writes a host's config into its temp HOME and says how to start it. */
export type Driver = (input: DriverInput) => Launch;

/** The entry point as a command line: scripts run on the Node running us. */
export function entryCommand(installed: InstalledHost, args: string[]): { command: string; args: string[] } {
    return installed.host.runWithNode ? { command: process.execPath, args: [installed.entry, ...args] } : { command: installed.entry, args };
}

/** The name every host gives our server in its config. */
export const SERVER_NAME = 'tasks';
