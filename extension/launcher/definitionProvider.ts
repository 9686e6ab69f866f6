import * as vscode from 'vscode';
import { Disposable } from '../lifecycle';
import type { ScopedLogger } from '../logger';
import type { ServerMode } from './serverMode';

/**
 * Publishes the server to VS Code's MCP client (what Copilot agent mode uses), as the current
 * mode describes it. `provide` is cheap and starts nothing; `resolve` is where a server starts.
 */
export class TasksMcpProvider extends Disposable implements vscode.McpServerDefinitionProvider {
    private version = 1;
    private readonly changed = this.register(new vscode.EventEmitter<void>());
    readonly onDidChangeMcpServerDefinitions = this.changed.event;

    constructor(
        private readonly mode: () => ServerMode,
        private readonly log: ScopedLogger,
    ) {
        super();
    }

    /** Makes VS Code fetch the definitions again (new version: it reconnects). */
    refresh(reason: string): void {
        this.version++;
        this.log.info(`definitions changed (${reason}); version ${this.version}`);
        this.changed.fire();
    }

    provideMcpServerDefinitions(): vscode.McpServerDefinition[] {
        return [this.mode().provide(String(this.version))];
    }

    resolveMcpServerDefinition(definition: vscode.McpServerDefinition): Promise<vscode.McpServerDefinition | undefined> {
        return this.mode().resolve(definition);
    }
}
