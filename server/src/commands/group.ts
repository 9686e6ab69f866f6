import { existsSync, readFileSync } from 'node:fs';
import { parseStat } from './processTable.js';

/** Whether process `pid` runs: on Linux a zombie counts as gone; elsewhere a signal 0 answers. */
export function processRunning(pid: number): boolean {
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
