import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { RUN_MARKER, type ProcessTable, type ScannedProcess } from './processTable.js';

// Linux's process table, read from /proc: descendants found by RUN_MARKER in their environment.

/**
 * How long a scan reads /proc before it lets the event loop turn. Synchronous reads of /proc cost
 * a tenth of what callback reads do on the main thread (one round trip to the thread pool per open,
 * stat, read and close), but on a loaded machine one can take a millisecond: the slice is timed,
 * not counted.
 */
const SLICE_MS = 4;
const MARKER_BYTES = Buffer.from(`${RUN_MARKER}=`);

export const procProcessTable: ProcessTable = {
    signal(target, signal) {
        try {
            process.kill(target, signal);
            return true;
        } catch {
            return false;
        }
    },
    scan,
    startTimeOf(pid) {
        return parseStat(read(`/proc/${pid}/stat`))?.startTime ?? 0;
    },
    commandOf(pid) {
        return read(`/proc/${pid}/cmdline`)?.toString('latin1').replace(/\0+$/, '').split('\0').join(' ') ?? '';
    },
};

async function scan(since: number): Promise<ScannedProcess[] | undefined> {
    let names: string[];
    try {
        names = readdirSync('/proc');
    } catch {
        return undefined;
    }
    const found: ScannedProcess[] = [];
    let sliceEnd = performance.now() + SLICE_MS;
    for (const name of names) {
        if (!/^\d+$/.test(name)) {
            continue;
        }
        if (performance.now() > sliceEnd) {
            await new Promise(setImmediate);
            sliceEnd = performance.now() + SLICE_MS;
        }
        const stat = parseStat(read(`/proc/${name}/stat`));
        if (stat === undefined || stat.state === 'Z' || stat.state === 'X') {
            continue;
        }
        const marker = stat.startTime >= since ? markerOf(read(`/proc/${name}/environ`)) : undefined;
        found.push({ pid: Number(name), pgrp: stat.pgrp, marker });
    }
    return found;
}

function read(path: string): Buffer | undefined {
    try {
        return readFileSync(path);
    } catch {
        return undefined;
    }
}

/** The state letter, process group and start time of a /proc/<pid>/stat. */
export function parseStat(stat: Buffer | undefined): { state: string; pgrp: number; startTime: number } | undefined {
    if (stat === undefined) {
        return undefined;
    }
    // pid (comm) state ppid pgrp … starttime is the 20th field after comm, which may hold spaces and parentheses.
    const fields = stat.toString('latin1', stat.lastIndexOf(0x29) + 2).split(' ');
    return { state: fields[0]!, pgrp: Number(fields[2]), startTime: Number(fields[19]) };
}
/** RUN_MARKER's value in a /proc/<pid>/environ (NUL-separated NAME=value). */
export function markerOf(environ: Buffer | undefined): string | undefined {
    if (environ === undefined) {
        return undefined;
    }
    for (let at = environ.indexOf(MARKER_BYTES); at >= 0; at = environ.indexOf(MARKER_BYTES, at + 1)) {
        if (at === 0 || environ[at - 1] === 0) {
            const start = at + MARKER_BYTES.length;
            const end = environ.indexOf(0, start);
            return environ.toString('latin1', start, end < 0 ? environ.length : end);
        }
    }
    return undefined;
}

/** Whether process `pid` runs, a zombie counting as gone; without /proc (a Linux-like OS that lacks it) a signal 0 answers. */
export function procProcessRunning(pid: number): boolean {
    try {
        process.kill(pid, 0);
    } catch {
        return false;
    }
    let stat: Buffer;
    try {
        stat = readFileSync(`/proc/${pid}/stat`);
    } catch {
        return existsSync('/proc') === false;
    }
    const state = parseStat(stat)?.state;
    return state !== 'Z' && state !== 'X';
}
