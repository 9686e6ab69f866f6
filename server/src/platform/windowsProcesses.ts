import { execFile } from 'node:child_process';
import type { ProcessTable, ScannedProcess } from './processTable.js';

/**
 * Windows has no process groups and no signals: process.kill ends one process (TerminateProcess)
 * and a process's children keep running. A stop therefore starts with `taskkill /T /F`, which ends
 * the tree where it exists, and goes on through parent links (lineage 'parent'): each scan lists
 * every process with its parent (wmic, or PowerShell's Get-CimInstance where wmic was removed) and
 * the stopper ends whatever descends from the run. Windows keeps a dead parent's id in its
 * children, so a child whose parent was ended first is still found. Where neither list can be
 * read, the scan answers undefined and the stop says it could not confirm the children ended.
 */
export interface WindowsProcessDeps {
    /** Runs a program hidden, resolving with its stdout bytes, or undefined when it failed. */
    run(file: string, args: readonly string[]): Promise<Buffer | undefined>;
    kill(pid: number, signal?: NodeJS.Signals | 0): void;
}

const runHidden: WindowsProcessDeps['run'] = (file, args) =>
    new Promise(resolve => {
        execFile(file, args, { windowsHide: true, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, timeout: 15_000 }, (err, stdout) => resolve(err ? undefined : stdout));
    });

/** wmic writes UTF-16; PowerShell, through a pipe, the console's code page. */
export function decodeOutput(bytes: Buffer): string {
    const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes.length > 1 && bytes[1] === 0 && bytes[0] !== 0);
    return (utf16 ? bytes.toString('utf16le') : bytes.toString('utf8')).replace(/^\uFEFF/, '');
}

/** A WMI datetime (`20261207053227.015000+060`: local time, then its offset in minutes) in ms since the epoch; 0 when absent. */
export function wmiTime(value: string | undefined): number {
    const m = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)\.(\d{3})\d*([+-]\d+)$/.exec(value ?? '');
    if (!m) {
        return 0;
    }
    const [, y, mo, d, h, mi, s, ms, offset] = m.map(Number) as number[];
    return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms!) - offset! * 60_000;
}

/** The rows of `wmic process get CreationDate,Name,ParentProcessId,ProcessId` (wmic prints its columns in that order). */
export function parseWmic(text: string): Array<ScannedProcess & { command: string }> {
    const lines = text.split(/\r*\n/).filter(line => line.trim() !== '');
    lines.shift();
    const rows: Array<ScannedProcess & { command: string }> = [];
    for (const line of lines) {
        const m = /^(\d{14}\.\d+[+-]\d+)?\s*(.*?)\s+(\d+)\s+(\d+)\s*$/.exec(line);
        if (m) {
            const pid = Number(m[4]);
            rows.push({ pid, ppid: Number(m[3]), pgrp: pid, start: wmiTime(m[1]), command: m[2]!.trim() });
        }
    }
    return rows;
}

/** The rows of the PowerShell fallback: `pid ppid name` a line. */
export function parsePowerShell(text: string): Array<ScannedProcess & { command: string }> {
    return text
        .split(/\r*\n/)
        .map(line => /^(\d+) (\d+) (\d+) ?(.*)$/.exec(line.trim()))
        .filter(m => m !== null)
        .map(m => ({ pid: Number(m[1]), ppid: Number(m[2]), pgrp: Number(m[1]), start: Number(m[3]), command: m[4]!.trim() }));
}

const POWERSHELL_LIST =
    "Get-CimInstance Win32_Process | ForEach-Object { $t = if ($_.CreationDate) { ([DateTimeOffset]$_.CreationDate).ToUnixTimeMilliseconds() } else { 0 }; '{0} {1} {2} {3}' -f $_.ProcessId,$_.ParentProcessId,$t,$_.Name }";

export function windowsProcessTable(deps: WindowsProcessDeps = { run: runHidden, kill: (pid, signal) => process.kill(pid, signal) }): ProcessTable {
    const names = new Map<number, string>();
    const alive = (pid: number): boolean => {
        try {
            deps.kill(pid, 0);
            return true;
        } catch {
            return false;
        }
    };
    const end = (pid: number): boolean => {
        try {
            deps.kill(pid);
            return true;
        } catch {
            return false;
        }
    };
    return {
        lineage: 'parent',
        groups: false,
        signal(target, signal) {
            const pid = Math.abs(target);
            if (signal === 0) {
                return alive(pid);
            }
            if (target > 0) {
                return end(pid);
            }
            // A tree: taskkill /T where it works; where it does not (Wine's has no /T, or it is
            // missing), the process itself, and the scans find and end its descendants.
            if (!alive(pid)) {
                return false;
            }
            void deps.run('taskkill', ['/T', '/F', '/PID', String(pid)]).then(out => out === undefined && end(pid));
            return true;
        },
        async scan() {
            const wmic = await deps.run('wmic', ['process', 'get', 'CreationDate,Name,ParentProcessId,ProcessId']);
            let rows = wmic === undefined ? undefined : parseWmic(decodeOutput(wmic));
            if (rows === undefined || rows.length === 0) {
                const ps = await deps.run('powershell', ['-NoProfile', '-NonInteractive', '-Command', POWERSHELL_LIST]);
                rows = ps === undefined ? undefined : parsePowerShell(decodeOutput(ps));
            }
            if (rows === undefined || rows.length === 0) {
                return undefined;
            }
            names.clear();
            for (const row of rows) {
                names.set(row.pid, row.command);
            }
            return rows.map(({ pid, ppid, pgrp, start }) => ({ pid, ppid, pgrp, start }));
        },
        // Reading a start time takes a wmic run (a second or more): identity is by pid alone, and
        // a live pid counts as the same process (keeping a dead server's folder is the safe mistake).
        startTimeOf: () => 0,
        // Called right after spawning: the child, and so each of its descendants, started at most a moment before (WMI times have whole-ms precision).
        runStartOf: () => Date.now() - 1000,
        commandOf: pid => (alive(pid) ? (names.get(pid) ?? '') : ''),
    };
}

