import * as vscode from 'vscode';
import { Commands } from './constants';
import type { Logger } from './logger';
import type { ServerHost } from './mcp/serverHost';
import type { TasksMcpProvider } from './mcp/definitionProvider';
import type { ExtensionConfig } from './config';

export interface CommandDeps {
    logger: Logger;
    host: ServerHost;
    provider: TasksMcpProvider;
    config: () => ExtensionConfig;
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
    return [
        vscode.commands.registerCommand(Commands.showLog, () => deps.logger.show()),
        vscode.commands.registerCommand(Commands.restartServer, async () => {
            if (deps.config().transport === 'http') {
                await deps.host.restart();
            } else {
                // VS Code owns the stdio process: a new definition version makes it restart it.
                deps.provider.refresh('restart requested');
                await vscode.commands.executeCommand('workbench.mcp.restartServer', deps.provider.serverId).then(undefined, () => undefined);
            }
            void vscode.window.setStatusBarMessage('MCP Tasks server restarted', 3000);
        }),
    ];
}
