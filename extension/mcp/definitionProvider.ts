import * as vscode from 'vscode';
import type { ExtensionConfig } from '../config';
import { SERVER_LABEL } from '../constants';
import { Disposable } from '../lifecycle';
import type { ScopedLogger } from '../logger';
import { serverEnv, stdioArgs } from './serverArgs';
import type { ServerHost } from './serverHost';
import type { StdioOwnerChannel } from './stdioOwner';

/**
 * Publishes the server to VS Code's MCP client (what Copilot agent mode uses). `provide` is
 * cheap and starts nothing; `resolve` starts the HTTP server when VS Code actually needs it.
 */
export class TasksMcpProvider extends Disposable implements vscode.McpServerDefinitionProvider {
    private version = 1;
    private readonly changed = this.register(new vscode.EventEmitter<void>());
    readonly onDidChangeMcpServerDefinitions = this.changed.event;

    constructor(
        private readonly host: ServerHost,
        private readonly stdioOwner: StdioOwnerChannel,
        private readonly serverJs: string,
        private readonly config: () => ExtensionConfig,
        private readonly log: ScopedLogger,
    ) {
        super();
        this.register(host.onDidChange(() => this.refresh('server restarted')));
    }

    /** The id VS Code's MCP commands use for our server (provider id + label). */
    get serverId(): string {
        return SERVER_LABEL;
    }

    /** Makes VS Code fetch the definitions again (new version: it reconnects). */
    refresh(reason: string): void {
        this.version++;
        this.log.info(`definitions changed (${reason}); version ${this.version}`);
        this.changed.fire();
    }

    provideMcpServerDefinitions(): vscode.McpServerDefinition[] {
        const settings = this.config();
        if (settings.transport === 'stdio') {
            const env = serverEnv({ ownerToken: this.host.ownerToken, ownerAnnounce: this.stdioOwner.file });
            return [new vscode.McpStdioServerDefinition(SERVER_LABEL, process.execPath, stdioArgs(this.serverJs, settings), env, String(this.version))];
        }
        // The real URL is filled in by resolve, once the server runs.
        const uri = vscode.Uri.parse(this.host.url ?? 'http://127.0.0.1/mcp');
        return [new vscode.McpHttpServerDefinition(SERVER_LABEL, uri, {}, String(this.version))];
    }

    async resolveMcpServerDefinition(definition: vscode.McpServerDefinition): Promise<vscode.McpServerDefinition | undefined> {
        if (definition instanceof vscode.McpHttpServerDefinition) {
            if (this.config().transport !== 'http') {
                // A stale definition from before a switch to stdio: starting it would revive the HTTP child.
                return undefined;
            }
            const server = await this.host.ensureStarted();
            definition.uri = vscode.Uri.parse(server.url);
            definition.headers = { ...definition.headers, Authorization: `Bearer ${this.host.clientToken}` };
        }
        return definition;
    }
}
