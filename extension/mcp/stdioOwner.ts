import { mkdtempSync, readFileSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../lifecycle';
import type { ScopedLogger } from '../logger';

export interface AnnouncedEndpoint {
    url: string;
    pid: number;
}

/**
 * stdio mode: VS Code spawns the server and owns its pipe. The server opens an owner-only
 * loopback endpoint and writes its URL into a file in this private (0700) directory.
 */
export class StdioOwnerChannel extends Disposable {
    readonly file: string;
    private readonly dir: string;
    private watcher?: FSWatcher;
    private last?: AnnouncedEndpoint;
    private readonly changed = this.register(new vscode.EventEmitter<AnnouncedEndpoint | undefined>());
    readonly onDidChange = this.changed.event;

    constructor(private readonly log: ScopedLogger) {
        super();
        this.dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-'));
        this.file = join(this.dir, 'owner.json');
        this.register(toDisposable(() => rmSync(this.dir, { recursive: true, force: true })));
    }

    get endpoint(): AnnouncedEndpoint | undefined {
        return this.last;
    }

    /** Starts watching; cheap, so it can run at activation. */
    start(): void {
        if (this.watcher) {
            return;
        }
        this.watcher = watch(this.dir, () => this.read());
        this.log.info(`watching ${this.dir} for the stdio server's owner endpoint`);
        this.register(toDisposable(() => this.watcher?.close()));
        this.read();
    }

    private read(): void {
        let next: AnnouncedEndpoint | undefined;
        try {
            next = JSON.parse(readFileSync(this.file, 'utf8')) as AnnouncedEndpoint;
        } catch {
            next = undefined;
        }
        if (next?.url !== this.last?.url) {
            this.last = next;
            this.log.info(next ? `stdio server ${next.pid} announced its owner endpoint` : 'stdio server owner endpoint gone');
            this.changed.fire(next);
        }
    }
}
