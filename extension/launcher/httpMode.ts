import * as vscode from 'vscode';
import type { ExtensionConfig } from '../config';
import { SERVER_LABEL } from '../constants';
import { Disposable } from '../lifecycle';
import type { ScopedLogger } from '../logger';
import type { OwnerEndpoint } from '../owner/ownerConnection';
import type { TaskView } from '../tasks/taskView';
import { ServerHost } from './serverHost';
import type { ServerMode } from './serverMode';

/** Until the server runs the definition carries a placeholder; resolve fills in the real URL. */
const PLACEHOLDER_URL = 'http://127.0.0.1/mcp';

/**
 * HTTP: this window runs one server child on loopback. VS Code's MCP client (Copilot) gets its URL
 * and the client token; our owner client gets the same URL with the owner token. Both tokens are
 * the current launch's: a restart makes new ones (and VS Code resolves the definition again).
 */
export class HttpMode extends Disposable implements ServerMode {
    readonly transport = 'http';
    private readonly host: ServerHost;
    private readonly serverChanged = this.register(new vscode.EventEmitter<void>());
    readonly onDidChangeServer = this.serverChanged.event;
    private readonly definitionChanged = this.register(new vscode.EventEmitter<string>());
    readonly onDidChangeDefinition = this.definitionChanged.event;

    constructor(
        serverJs: string,
        config: () => ExtensionConfig,
        log: ScopedLogger,
        lostTasks?: () => readonly TaskView[],
    ) {
        super();
        this.host = this.register(new ServerHost(serverJs, config, log, lostTasks));
        this.register(
            this.host.onDidChange(() => {
                this.definitionChanged.fire('server restarted');
                this.serverChanged.fire();
            }),
        );
        this.register(this.host.onDidLaunch(() => this.serverChanged.fire()));
    }

    provide(version: string): vscode.McpServerDefinition {
        return new vscode.McpHttpServerDefinition(SERVER_LABEL, vscode.Uri.parse(this.host.url ?? PLACEHOLDER_URL), {}, version);
    }

    async resolve(definition: vscode.McpServerDefinition): Promise<vscode.McpServerDefinition | undefined> {
        if (!(definition instanceof vscode.McpHttpServerDefinition)) {
            return undefined;
        }
        // The one place the HTTP server starts on VS Code's behalf: only when it is about to connect.
        const server = await this.host.ensureStarted();
        definition.uri = vscode.Uri.parse(server.url);
        definition.headers = { ...definition.headers, Authorization: `Bearer ${server.secrets.clientToken}` };
        return definition;
    }

    get ownerEndpoint(): OwnerEndpoint | undefined {
        const { url, secrets } = this.host;
        return url && secrets ? { url, token: secrets.ownerToken, pid: this.host.pid } : undefined;
    }

    get clientEndpoint(): { url: string; token: string } | undefined {
        const { url, secrets } = this.host;
        return url && secrets ? { url, token: secrets.clientToken } : undefined;
    }

    get state(): { pid?: number; url?: string } {
        return { pid: this.host.pid, url: this.host.url };
    }

    get problem(): string | undefined {
        return this.host.problem;
    }

    async start(): Promise<void> {
        await this.host.ensureStarted();
    }

    async restart(): Promise<void> {
        // A server that failed to start is restarted too: that is how a fixed setting or Restart Server retries it.
        if (this.host.isRunning || this.host.problem) {
            await this.host.restart();
        }
    }

    stop(): Promise<void> {
        return this.host.stop();
    }
}
