import * as vscode from 'vscode';
import type { ExtensionConfig } from '../config';
import { SERVER_ID, SERVER_LABEL } from '../constants';
import { Disposable } from '../lifecycle';
import type { ScopedLogger } from '../logger';
import type { OwnerEndpoint } from './ownerConnection';
import { serverEnv, stdioArgs } from './serverArgs';
import type { Secrets, ServerMode } from './serverMode';
import { StdioOwnerChannel } from './stdioOwner';

/**
 * stdio: VS Code spawns the server and owns its pipe. The server announces an owner-only loopback
 * endpoint through a file we watch; our owner client connects there.
 */
export class StdioMode extends Disposable implements ServerMode {
    readonly transport = 'stdio';
    private readonly channel: StdioOwnerChannel;
    private readonly definitionChanged = this.register(new vscode.EventEmitter<string>());
    readonly onDidChangeDefinition = this.definitionChanged.event;
    readonly onDidChangeServer: vscode.Event<void>;

    constructor(
        private readonly serverJs: string,
        private readonly secrets: Secrets,
        private readonly config: () => ExtensionConfig,
        log: ScopedLogger,
    ) {
        super();
        this.channel = this.register(new StdioOwnerChannel(log));
        const changed = this.register(new vscode.EventEmitter<void>());
        this.onDidChangeServer = changed.event;
        this.register(this.channel.onDidChange(() => changed.fire()));
        this.channel.start();
    }

    provide(version: string): vscode.McpServerDefinition {
        const env = serverEnv({ ownerToken: this.secrets.ownerToken, ownerAnnounce: this.channel.file });
        return new vscode.McpStdioServerDefinition(SERVER_LABEL, process.execPath, stdioArgs(this.serverJs, this.config()), env, version);
    }

    async resolve(definition: vscode.McpServerDefinition): Promise<vscode.McpServerDefinition | undefined> {
        return definition instanceof vscode.McpStdioServerDefinition ? definition : undefined;
    }

    get ownerEndpoint(): OwnerEndpoint | undefined {
        const announced = this.channel.endpoint;
        return announced ? { url: announced.url, token: this.secrets.ownerToken, pid: announced.pid } : undefined;
    }

    /** VS Code holds the server's only client pipe. */
    readonly clientEndpoint = undefined;

    get state(): { pid?: number; url?: string } {
        return { pid: this.channel.endpoint?.pid, url: this.channel.endpoint?.url };
    }

    /** VS Code reports a stdio server's failures itself. */
    readonly problem = undefined;

    async start(): Promise<void> {
        if (!this.channel.endpoint) {
            // VS Code owns the stdio process: ask it to start our server.
            await vscode.commands.executeCommand('workbench.mcp.startServer', SERVER_ID, { autoTrustChanges: true });
        }
    }

    async restart(): Promise<void> {
        // A new definition version makes VS Code stop its process and start a new one.
        this.definitionChanged.fire('restart requested');
    }

    /** VS Code stops its own process once the definitions no longer list it. */
    async stop(): Promise<void> {}
}
