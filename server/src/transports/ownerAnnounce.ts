import { chmod, rename, rm, writeFile } from 'node:fs/promises';
import type { TasksServer } from '../server.js';
import { listenHttp, type HttpHandle } from './http.js';

/**
 * In stdio mode the editor that launched us cannot share the pipe its MCP client owns, so we
 * open a loopback endpoint that only the owner token opens and tell the editor where it is
 * through a file in a directory it created for us (so no other user can read it).
 */
export async function announceOwnerEndpoint(core: TasksServer, file: string, ownerToken: string, sessionIdleMs: number, bodyLimitBytes: number): Promise<HttpHandle> {
    const http = await listenHttp(core, { host: '127.0.0.1', port: 0, ownerToken, ownerOnly: true, sessionIdleMs, bodyLimitBytes });
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify({ url: http.url, pid: process.pid }), { mode: 0o600 });
    await chmod(temp, 0o600);
    // Rename is atomic: a watcher never reads half a file.
    await rename(temp, file);
    return {
        ...http,
        close: async () => {
            await http.close();
            await rm(file, { force: true });
        },
    };
}
