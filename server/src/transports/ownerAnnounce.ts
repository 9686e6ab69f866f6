import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { OwnerAnnouncement } from '../contract.js';
import type { TasksServer } from '../server.js';
import { currentPlatform } from '../platform/index.js';
import { listenHttp, type HttpHandle } from './http.js';

/**
 * In stdio mode the editor that launched us cannot share the pipe its MCP client owns, so we
 * open a loopback endpoint that only the owner token opens and tell the editor where it is
 * through a file in a directory it created for us (so no other user can read or plant anything).
 * The file goes before the endpoint closes, and on any exit Node lives through (a SIGKILL leaves
 * it: the extension ignores a file whose process is gone).
 */
export async function announceOwnerEndpoint(core: TasksServer, file: string, ownerToken: string, sessionIdleMs: number, bodyLimitBytes: number): Promise<HttpHandle> {
    assertPrivateDirectory(dirname(file));
    const http = await listenHttp(core, { host: '127.0.0.1', port: 0, ownerToken, ownerOnly: true, sessionIdleMs, bodyLimitBytes });
    let written: { dev: number; ino: number } | undefined;
    const withdraw = () => {
        if (written) {
            removeIfOurs(file, written);
            written = undefined;
        }
    };
    process.once('exit', withdraw);
    try {
        written = writeExclusive(file, JSON.stringify({ url: http.url, pid: process.pid } satisfies OwnerAnnouncement));
    } catch (err) {
        process.off('exit', withdraw);
        await http.close();
        throw err;
    }
    return {
        ...http,
        stopAccepting: () => {
            // Withdraw first: once the listener closes, another user could bind its port.
            withdraw();
            http.stopAccepting();
        },
        close: async () => {
            withdraw();
            process.off('exit', withdraw);
            await http.close();
        },
    };
}

/** The directory must be ours, a real directory, and closed to everyone else (what mkdtemp makes). */
function assertPrivateDirectory(dir: string): void {
    const stat = lstatSync(dir);
    if (!stat.isDirectory()) {
        throw new Error(`${dir} is not a directory`);
    }
    const problem = currentPlatform.privateDirProblem(stat);
    if (problem !== undefined) {
        throw new Error(`${dir} ${problem}`);
    }
}

/**
 * A fresh, unguessable temp name opened with O_EXCL | O_NOFOLLOW (nothing planted there is
 * followed or reused), then renamed over the target: rename replaces a link instead of following
 * it, and a watcher never reads half a file.
 */
function writeExclusive(file: string, content: string): { dev: number; ino: number } {
    const temp = join(dirname(file), `.${basename(file)}.${randomBytes(12).toString('hex')}.tmp`);
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
    try {
        let stat;
        try {
            writeSync(fd, content);
            stat = fstatSync(fd);
        } finally {
            closeSync(fd);
        }
        renameSync(temp, file);
        return { dev: stat.dev, ino: stat.ino };
    } catch (err) {
        rmSync(temp, { force: true });
        throw err;
    }
}

/** Removes the announce file only while it is still the one we wrote (never a successor's). */
function removeIfOurs(file: string, written: { dev: number; ino: number }): void {
    try {
        const stat = lstatSync(file);
        if (stat.dev === written.dev && stat.ino === written.ino) {
            unlinkSync(file);
        }
    } catch {
        // Already gone.
    }
}
