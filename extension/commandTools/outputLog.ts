/** A command task's log file, as the server names it (no vscode import: unit-tested). */
import { closeSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Logs kept from earlier sessions: the newest this many, none older than LOG_MAX_AGE_MS. */
export const LOGS_KEPT = 100;
export const LOG_MAX_AGE_MS = 7 * 24 * 3600_000;

/** The view shows at most this much of the end of a log; the file keeps all of it. */
export const MAX_SHOWN_BYTES = 2 * 1024 * 1024;

/**
 * The log of `taskId`'s run of `toolName` in `logDir`, if the server has opened it. The server
 * names each run's log `<tool>-<taskId>-<server pid>-<run>.log` (server/src/commands/logs.ts).
 */
export function findLogFile(logDir: string, toolName: string, taskId: string): string | undefined {
    const prefix = `${toolName}-${taskId}-`;
    let names: string[];
    try {
        names = readdirSync(logDir);
    } catch {
        return undefined;
    }
    const name = names.find(entry => entry.startsWith(prefix) && entry.endsWith('.log'));
    return name === undefined ? undefined : join(logDir, name);
}

export function sizeOf(path: string): number {
    try {
        return statSync(path).size;
    } catch {
        return -1;
    }
}

/** The log's text, or its last `maxBytes` (cut at a line start) after a line saying so. */
export function readLogTail(path: string, maxBytes = MAX_SHOWN_BYTES): string {
    const size = sizeOf(path);
    if (size <= 0) {
        return '';
    }
    const start = Math.max(0, size - maxBytes);
    const buffer = Buffer.alloc(size - start);
    const fd = openSync(path, 'r');
    try {
        readSync(fd, buffer, 0, buffer.length, start);
    } finally {
        closeSync(fd);
    }
    const text = buffer.toString('utf8');
    if (start === 0) {
        return text;
    }
    const cut = text.indexOf('\n') + 1;
    return `… (${start + cut} earlier bytes are in ${path})\n${text.slice(cut)}`;
}

/** Deletes the command logs of earlier sessions beyond the newest LOGS_KEPT or older than LOG_MAX_AGE_MS; returns how many. */
export function pruneLogs(logDir: string, now: number): number {
    let names: string[];
    try {
        names = readdirSync(logDir).filter(name => name.endsWith('.log'));
    } catch {
        return 0;
    }
    const logs = names
        .map(name => ({ path: join(logDir, name), mtime: statSync(join(logDir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
        .sort((a, b) => b.mtime - a.mtime);
    const old = logs.filter((log, index) => index >= LOGS_KEPT || now - log.mtime > LOG_MAX_AGE_MS);
    for (const log of old) {
        rmSync(log.path, { force: true });
    }
    return old.length;
}
