import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Clock } from '../clock.js';

const POLL_MS = 20;

/** Sends `signal` to every process of group `pgid`; false when the group has none left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
    try {
        process.kill(-pgid, signal);
        return true;
    } catch {
        return false;
    }
}

/** A process's state letter and process group from /proc (Linux), or undefined when it is gone or /proc is absent. */
function procStat(pid: string | number): { state: string; pgrp: number } | undefined {
    let stat: string;
    try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
        return undefined;
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, pgrp: Number(fields[2]) };
}

/** Exited but not reaped (as PID 1 in some containers never reaps orphans) counts as gone. */
function live(state: string): boolean {
    return state !== 'Z' && state !== 'X';
}

/** Whether process `pid` runs: on Linux a zombie counts as gone; elsewhere a signal 0 answers. */
export function processRunning(pid: number): boolean {
    try {
        process.kill(pid, 0);
    } catch {
        return false;
    }
    const stat = procStat(pid);
    return stat === undefined ? existsSync('/proc') === false : live(stat.state);
}

/**
 * Whether a live process is left in group `pgid`. On Linux it reads /proc, so zombies count as
 * gone; elsewhere a signal 0 to the group answers.
 */
export function groupAlive(pgid: number): boolean {
    let entries: string[];
    try {
        entries = readdirSync('/proc');
    } catch {
        return signalGroup(pgid, 0 as unknown as NodeJS.Signals);
    }
    for (const entry of entries) {
        if (!/^\d+$/.test(entry)) {
            continue;
        }
        const stat = procStat(entry);
        if (stat !== undefined && stat.pgrp === pgid && live(stat.state)) {
            return true;
        }
    }
    return false;
}

/** Resolves once group `pgid` has no live process, checking every few milliseconds on `clock`. */
export function groupGone(pgid: number, clock: Clock): Promise<void> {
    return new Promise(resolve => {
        const check = (): void => {
            if (groupAlive(pgid)) {
                clock.setTimeout(check, POLL_MS, undefined);
            } else {
                resolve();
            }
        };
        check();
    });
}

/**
 * Stops group `pgid`: SIGTERM to all of it, SIGKILL to whatever is left after `graceMs`. Resolves
 * once `leaderExited` has and no live process is left in the group.
 */
export async function stopGroup(pgid: number, leaderExited: Promise<unknown>, graceMs: number, clock: Clock): Promise<void> {
    if (!signalGroup(pgid, 'SIGTERM')) {
        await leaderExited;
        return;
    }
    const gone = Promise.all([leaderExited, groupGone(pgid, clock)]);
    const timer = clock.setTimeout(() => signalGroup(pgid, 'SIGKILL'), graceMs, undefined);
    await gone;
    clock.clearTimeout(timer);
}
