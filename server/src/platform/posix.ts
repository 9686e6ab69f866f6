import type { Stats } from 'node:fs';
import type { SpawnPlan } from './platform.js';

/** The script runs as `sh -c script name params…`: each parameter is a positional `$1`…, never parsed as shell syntax. */
export function posixShellArgv(script: string, name: string, params: readonly string[]): string[] {
    return ['/bin/sh', '-c', script, name, ...params];
}

/** In its own process group (detached), so a stop can signal the whole group; PATH lookup is execvp's. */
export function posixSpawnPlan(argv: readonly string[]): SpawnPlan {
    return { file: argv[0]!, args: argv.slice(1), options: { detached: true } };
}

/** Owned by this user and closed to everyone else (mode 0700, what mkdtemp makes). */
export function posixPrivateDirProblem(stat: Stats): string | undefined {
    const uid = process.getuid?.();
    if ((uid !== undefined && stat.uid !== uid) || (stat.mode & 0o077) !== 0) {
        return 'must be a private directory (owned by this user, mode 0700)';
    }
    return undefined;
}
