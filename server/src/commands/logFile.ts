import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CallToolResult } from '../tools/types.js';

/** Why a run's log could not be written, and what fixes it. */
export function logFailureText(err: NodeJS.ErrnoException, logPath: string): string {
    const why =
        err.code === 'ENOENT'
            ? `its folder ${dirname(logPath)} does not exist (any more); restart the server or give --commands-log-dir a folder that exists`
            : err.code === 'ENOSPC'
              ? 'the disk is full'
              : (err.code ?? err.message);
    return `cannot write the log file ${logPath}: ${why}`;
}

/** The result of a run that did not start because its log could not be opened. */
export function logFailure(err: NodeJS.ErrnoException, argv: readonly string[], logPath: string): CallToolResult {
    return notStarted(logFailureText(err, logPath), argv, logPath);
}

/** The result of a run refused before anything started, saying why. */
export function notStarted(why: string, argv: readonly string[], logPath: string): CallToolResult {
    const summary = `Not run: ${why}`;
    const structuredContent = { status: 'not_started', command: [...argv], exitCode: null, signal: null, durationMs: 0, logPath, logBytes: 0, logLines: 0, summary };
    return { content: [{ type: 'text', text: summary }], structuredContent, isError: true };
}

/**
 * A run this server could not follow to its end (taken over after a restart, its command no longer
 * declared or its files gone): stopped, `why` in the text and in the structured summary alike, since
 * some hosts read only the one and some only the other.
 */
export function runNotFollowed(why: string, argv: readonly string[], logPath: string): CallToolResult {
    const structuredContent = { status: 'failed', command: [...argv], exitCode: null, signal: null, durationMs: 0, logPath, logBytes: 0, logLines: 0, summary: why };
    return { content: [{ type: 'text', text: why }], structuredContent, isError: true };
}

/** Why a program did not start: not found, or (the same ENOENT) a working directory that is gone. */
export function startFailure(err: NodeJS.ErrnoException, argv: readonly string[], cwd: string): string {
    if (err.code === 'ENOENT' && !isDirectory(cwd)) {
        return `cannot start ${argv[0]}: the working directory ${cwd} does not exist (any more)`;
    }
    return err.code === 'ENOENT' ? `not found: ${argv[0]} (from ${cwd})` : `cannot start ${argv[0]}: ${err.code ?? err.message}`;
}

export function isDirectory(path: string): boolean {
    try {
        return statSync(path).isDirectory();
    } catch {
        return false;
    }
}
