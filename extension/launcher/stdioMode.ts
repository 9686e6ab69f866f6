import * as vscode from 'vscode';
import type { ExtensionConfig } from '../config';
import { SERVER_ID, SERVER_LABEL } from '../constants';
import { Disposable } from '../lifecycle';
import type { ScopedLogger } from '../logger';
import type { OwnerEndpoint } from '../owner/ownerConnection';
import { baseEnv, serverEnv, stdioArgs } from './serverArgs';
import type { ServerMode } from './serverMode';
import { StdioOwnerChannel } from '../owner/stdioOwner';

/**
 * stdio: VS Code spawns the server and owns its pipe. Each launch gets its own owner token and
 * announce file when VS Code resolves the definition; the server announces an owner-only loopback
 * endpoint through that file, and our owner client connects there once the channel verified it.
 */
export class StdioMode extends Disposable implements ServerMode {
    readonly transport = 'stdio';
    private readonly channel: StdioOwnerChannel;
    private readonly definitionChanged = this.register(new vscode.EventEmitter<string>());
    readonly onDidChangeDefinition = this.definitionChanged.event;
    readonly onDidChangeServer: vscode.Event<void>;

    constructor(
        private readonly serverJs: string,
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

    /** Holds no secret: the listed definition may be cached by VS Code; resolve adds the launch's. */
    provide(version: string): vscode.McpServerDefinition {
        return new vscode.McpStdioServerDefinition(SERVER_LABEL, process.execPath, stdioArgs(this.serverJs, this.config()), baseEnv(), version);
    }

    /** VS Code resolves the definition every time it starts the server: each launch gets fresh credentials. */
    async resolve(definition: vscode.McpServerDefinition): Promise<vscode.McpServerDefinition | undefined> {
        if (!(definition instanceof vscode.McpStdioServerDefinition)) {
            return undefined;
        }
        const launch = this.channel.newLaunch();
        definition.env = { ...definition.env, ...serverEnv({ ownerToken: launch.token, ownerAnnounce: launch.file }) };
        return definition;
    }

    get ownerEndpoint(): OwnerEndpoint | undefined {
        return this.channel.endpoint;
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
