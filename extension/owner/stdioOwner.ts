import { mkdtempSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { newSecret } from '@mcp-tasks/server/contract';
import { Disposable, toDisposable } from '../lifecycle';
import type { ScopedLogger } from '../logger';
import type { OwnerEndpoint } from './ownerConnection';
import { processAlive, readAnnouncement, verifyOwnerEndpoint } from './ownerVerify';

/** How often the announced process is checked: well under the 1 s before a client reconnects a stream. */
const LIVENESS_POLL_MS = 200;
/** Launches VS Code asked for and whose servers may still run; older ones are forgotten. */
const MAX_LAUNCHES = 8;

/** What one stdio server is launched with: its own owner token and its own announce file. */
export interface StdioLaunch {
    readonly token: string;
    readonly file: string;
}

/**
 * stdio mode: VS Code spawns the server and owns its pipe. Each launch gets a fresh owner token
 * and announce file (in this private 0700 directory); the server opens an owner-only loopback
 * endpoint and writes its URL and pid there. An announcement counts only while its process
 * lives and after the endpoint proved it holds that launch's token; it is withdrawn as soon as
 * the process is gone, before the port it freed can be taken by someone else.
 */
export class StdioOwnerChannel extends Disposable {
    private readonly dir: string;
    private readonly launches: StdioLaunch[] = [];
    private watcher?: FSWatcher;
    private current?: OwnerEndpoint;
    /** The announce file `current` came from: still there after its process died means a crash. */
    private currentFile?: string;
    private checking = false;
    private recheck = false;
    private readonly changed = this.register(new vscode.EventEmitter<OwnerEndpoint | undefined>());
    readonly onDidChange = this.changed.event;
    private readonly crashed = this.register(new vscode.EventEmitter<number>());
    /**
     * The server we were connected to died without cleaning up (SIGKILL, a crash): its announcement
     * outlived it. A server that stops (end of input, a signal) removes its file first, so VS Code
     * stopping or restarting it is no crash. Fires the pid, after onDidChange withdrew the endpoint.
     */
    readonly onDidCrash = this.crashed.event;

    constructor(private readonly log: ScopedLogger) {
        super();
        this.dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-'));
        this.register(toDisposable(() => rmSync(this.dir, { recursive: true, force: true })));
    }

    /** The verified endpoint of the newest live launch, with its token. */
    get endpoint(): OwnerEndpoint | undefined {
        return this.current;
    }

    /** Credentials for a server about to start; nothing of an earlier launch opens it. */
    newLaunch(): StdioLaunch {
        const launch = { token: newSecret(), file: join(this.dir, `owner-${newSecret(12)}.json`) };
        this.launches.push(launch);
        this.launches.splice(0, Math.max(0, this.launches.length - MAX_LAUNCHES));
        return launch;
    }

    /** Starts watching; cheap, so it can run at activation. */
    start(): void {
        if (this.watcher) {
            return;
        }
        this.watcher = watch(this.dir, () => this.refresh());
        const poll = setInterval(() => this.withdrawIfDead(), LIVENESS_POLL_MS);
        poll.unref();
        this.log.info(`watching ${this.dir} for the stdio server's owner endpoint`);
        this.register(
            toDisposable(() => {
                this.watcher?.close();
                clearInterval(poll);
            }),
        );
        this.refresh();
    }

    private withdrawIfDead(): void {
        const gone = this.current;
        if (gone && !processAlive(gone.pid!)) {
            const leftBehind = this.currentFile !== undefined && readAnnouncement(this.currentFile)?.pid === gone.pid;
            this.log.info(`stdio server ${gone.pid} is gone${leftBehind ? ' without cleaning up (it crashed or was killed)' : ''}`);
            this.publish(undefined);
            if (leftBehind) {
                this.crashed.fire(gone.pid!);
            }
            this.refresh();
        }
    }

    /** Re-reads the announcements; one pass at a time, and again if something changed meanwhile. */
    private refresh(): void {
        if (this.checking) {
            this.recheck = true;
            return;
        }
        this.checking = true;
        void this.choose()
            .then(next => this.publish(next?.endpoint, next?.file))
            .catch(err => this.log.error(`reading the owner announcements failed: ${(err as Error).message}`))
            .finally(() => {
                this.checking = false;
                if (this.recheck && !this.isDisposed) {
                    this.recheck = false;
                    this.refresh();
                }
            });
    }

    /** The newest launch whose process lives and whose endpoint proves it holds that launch's token. */
    private async choose(): Promise<{ endpoint: OwnerEndpoint; file: string } | undefined> {
        for (const launch of [...this.launches].reverse()) {
            const announced = readAnnouncement(launch.file);
            if (!announced) {
                continue;
            }
            if (!processAlive(announced.pid)) {
                // Left behind by a server that could not clean up (SIGKILL, a crash).
                this.log.info(`ignoring the stale owner announcement of process ${announced.pid}`);
                rmSync(launch.file, { force: true });
                if (announced.pid === this.current?.pid) {
                    // Read before the liveness poll saw it go: the same crash.
                    this.publish(undefined);
                    this.crashed.fire(announced.pid);
                }
                continue;
            }
            const candidate: OwnerEndpoint = { url: announced.url, pid: announced.pid, token: launch.token };
            if (sameEndpoint(candidate, this.current) || (await verifyOwnerEndpoint(candidate.url, candidate.token))) {
                // The process may have died while we asked.
                return processAlive(announced.pid) ? { endpoint: candidate, file: launch.file } : undefined;
            }
            this.log.warn(`the endpoint announced for process ${announced.pid} did not prove it is our server; not connecting to it`);
        }
        return undefined;
    }

    private publish(next: OwnerEndpoint | undefined, file?: string): void {
        if (this.isDisposed || sameEndpoint(next, this.current)) {
            return;
        }
        this.current = next;
        this.currentFile = next ? file : undefined;
        this.log.info(next ? `stdio server ${next.pid} announced its owner endpoint` : 'stdio server owner endpoint gone');
        this.changed.fire(next);
    }
}

function sameEndpoint(a: OwnerEndpoint | undefined, b: OwnerEndpoint | undefined): boolean {
    return a?.url === b?.url && a?.pid === b?.pid && a?.token === b?.token;
}
