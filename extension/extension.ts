import * as vscode from 'vscode';
import type { McpTasksApi } from './api';
import { registerCommands } from './commands';
import { onDidChangeServerConfig, readConfig } from './config';
import { PROVIDER_ID } from './constants';
import { Logger } from './logger';
import { TasksMcpProvider } from './mcp/definitionProvider';
import { ServerHost } from './mcp/serverHost';
import { StdioOwnerChannel } from './mcp/stdioOwner';

let host: ServerHost | undefined;

/** A thin composition root: build, wire, register. Nothing here waits on the server. */
export function activate(context: vscode.ExtensionContext): McpTasksApi {
    const logger = new Logger();
    context.subscriptions.push(logger);
    const log = logger.scoped('extension');
    const serverJs = context.asAbsolutePath('dist/server.js');
    let config = readConfig();
    const current = () => config;

    host = new ServerHost(serverJs, current, logger.scoped('server'));
    const stdioOwner = new StdioOwnerChannel(logger.scoped('stdio'));
    const provider = new TasksMcpProvider(host, stdioOwner, serverJs, current, logger.scoped('provider'));
    context.subscriptions.push(host, stdioOwner, provider);
    context.subscriptions.push(vscode.lm.registerMcpServerDefinitionProvider(PROVIDER_ID, provider));
    context.subscriptions.push(...registerCommands({ logger, host, provider, config: current }));
    if (config.transport === 'stdio') {
        stdioOwner.start();
    }

    context.subscriptions.push(
        onDidChangeServerConfig(() => {
            const previous = config;
            config = readConfig();
            log.info(`settings changed: transport ${previous.transport} → ${config.transport}`);
            if (config.transport === 'stdio') {
                stdioOwner.start();
            }
            // Stop the old HTTP child before VS Code asks for the new definition.
            void host!.stop().then(() => provider.refresh('settings changed'));
        }),
    );
    log.info(`activated (transport: ${config.transport})`);

    const testMode = context.extensionMode === vscode.ExtensionMode.Test;
    return {
        get transport() {
            return config.transport;
        },
        serverState: () => (config.transport === 'http' ? { transport: 'http', pid: host?.pid, url: host?.url } : { transport: 'stdio', pid: stdioOwner.endpoint?.pid, url: stdioOwner.endpoint?.url }),
        ensureServer: async () => {
            if (config.transport === 'stdio') {
                return { pid: stdioOwner.endpoint?.pid, url: stdioOwner.endpoint?.url };
            }
            const server = await host!.ensureStarted();
            return { pid: server.pid, url: server.url };
        },
        ownerEndpointForTests: () => {
            if (!testMode || !host) {
                return undefined;
            }
            const url = config.transport === 'http' ? host.url : stdioOwner.endpoint?.url;
            return url ? { url, token: host.ownerToken } : undefined;
        },
    };
}

/** VS Code awaits this: the server child must be gone when the extension host moves on. */
export async function deactivate(): Promise<void> {
    await host?.stop();
    host = undefined;
}
