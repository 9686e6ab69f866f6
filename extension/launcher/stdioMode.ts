import * as vscode from 'vscode';
import type { ExtensionConfig } from '../config';
import { SERVER_ID, SERVER_LABEL } from '../constants';
import { Disposable } from '../lifecycle';
import type { ScopedLogger } from '../logger';
import type { OwnerEndpoint } from '../owner/ownerConnection';
import type { TaskView } from '../tasks/taskView';
import { showCrashNotice } from '../views/crashNotice';
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

    private crashed?: string;

    constructor(
        private readonly serverJs: string,
        private readonly config: () => ExtensionConfig,
        log: ScopedLogger,
        /** The tasks still unfinished when the server went away (the owner's view of it), for the crash notice. */
        private readonly lostTasks: () => readonly TaskView[] = () => [],
    ) {
        super();
        this.channel = this.register(new StdioOwnerChannel(log));
        const changed = this.register(new vscode.EventEmitter<void>());
        this.onDidChangeServer = changed.event;
        this.register(
            this.channel.onDidChange(endpoint => {
                if (endpoint) {
                    // A server runs again (VS Code started it, for Copilot or for us).
                    this.crashed = undefined;
                }
                changed.fire();
            }),
        );
        // VS Code shows a stdio server's exit only in its MCP output; say here what it cost. The
        // endpoint was withdrawn first, so the owner's view has marked the unfinished tasks lost.
        this.register(
            this.channel.onDidCrash(pid => {
                log.warn(`stdio server ${pid} stopped unexpectedly`);
                this.crashed = vscode.l10n.t('MCP Tasks server stopped unexpectedly');
                changed.fire();
                void showCrashNotice(vscode.l10n.t('MCP Tasks server stopped unexpectedly.'), this.lostTasks(), true);
            }),
        );
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

    /** Set after the server crashed, until one runs again (VS Code reports a failed start itself). */
    get problem(): string | undefined {
        return this.crashed;
    }

    async start(): Promise<void> {
        if (!this.channel.endpoint) {
            // VS Code owns the stdio process: ask it to start our server.
            await vscode.commands.executeCommand('workbench.mcp.startServer', SERVER_ID, { autoTrustChanges: true });
        }
    }

    async restart(): Promise<void> {
        if (this.crashed) {
            // Nothing runs to replace: ask VS Code to start it again.
            await this.start();
            return;
        }
        // A new definition version makes VS Code stop its process and start a new one.
        this.definitionChanged.fire('restart requested');
    }

    /** VS Code stops its own process once the definitions no longer list it. */
    async stop(): Promise<void> {}
}
