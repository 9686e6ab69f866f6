import { execFile, spawnSync } from 'node:child_process';
import type { ProcessTable, ScannedProcess } from './processTable.js';

/**
 * The process table as `ps` gives it, for an OS without /proc (macOS). Linux's procps answers
 * the same options, so this table runs for real on Linux too (the tests force it there).
 * `ps` shows no other process's environment portably, so descendants are found by their parent
 * links (lineage 'parent'): a child that left the group is found while some ancestor of it in the
 * run is known, which a scan at the stop's start and every rescan keep up to date.
 */
const PS_FIELDS = 'pid=,ppid=,pgid=,stat=,lstart=,command=';
/** ps in the C locale, so lstart reads the same everywhere (`Mon Dec  7 04:27:36 2026`). */
const PS_ENV = { ...process.env, LC_ALL: 'C' };

export interface PsProcess extends ScannedProcess {
    state: string;
    start: number;
    command: string;
}

/** One line of `ps -o pid=,ppid=,pgid=,stat=,lstart=,command=`, or undefined for one it cannot read. */
export function parsePsLine(line: string): PsProcess | undefined {
    const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\w{3}\s+\w{3}\s+\d+\s+[\d:]+\s+\d{4})\s?(.*)$/.exec(line);
    if (!m) {
        return undefined;
    }
    const start = Date.parse(m[5]!.replace(/\s+/g, ' '));
    return { pid: Number(m[1]), ppid: Number(m[2]), pgrp: Number(m[3]), state: m[4]!, start: Number.isNaN(start) ? 0 : start, command: m[6]!.trim() };
}

/** Every live process of `ps -A` output: zombies (state Z) count as gone. */
export function parsePs(output: string): PsProcess[] {
    return output
        .split('\n')
        .map(parsePsLine)
        .filter((proc): proc is PsProcess => proc !== undefined && !proc.state.startsWith('Z'));
}

function psOne(pid: number, field: string): string {
    const run = spawnSync('ps', ['-o', field, '-p', String(pid)], { encoding: 'utf8', env: PS_ENV, timeout: 5000 });
    return run.status === 0 ? run.stdout.trim() : '';
}

/** A process table read through `ps`: process groups are real, signals are POSIX ones. */
export function psProcessTable(): ProcessTable {
    return {
        lineage: 'parent',
        signal(target, signal) {
            try {
                process.kill(target, signal);
                return true;
            } catch {
                return false;
            }
        },
        scan() {
            return new Promise(resolve => {
                execFile('ps', ['-A', '-o', PS_FIELDS], { env: PS_ENV, maxBuffer: 64 * 1024 * 1024, timeout: 10_000 }, (err, stdout) => {
                    resolve(err ? undefined : parsePs(stdout));
                });
            });
        },
        // lstart has whole seconds: a descendant started in the leader's second reads the same, never less.
        startTimeOf(pid) {
            const start = Date.parse(psOne(pid, 'lstart=').replace(/\s+/g, ' '));
            return Number.isNaN(start) ? 0 : start;
        },
        commandOf(pid) {
            return psOne(pid, 'command=');
        },
    };
}

/** Whether `pid` runs, by ps: a zombie counts as gone. */
export function psProcessRunning(pid: number): boolean {
    try {
        process.kill(pid, 0);
    } catch {
        return false;
    }
    const state = psOne(pid, 'stat=');
    return !state.startsWith('Z');
}
