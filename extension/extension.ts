import * as vscode from 'vscode';
import type { McpTasksApi } from './api';
import { registerCommands } from './commands';
import { onDidChangeServerConfig, readConfig } from './config';
import { PROVIDER_ID, Views } from './constants';
import { SamplingResponder } from './lm/sampling';
import { Logger } from './logger';
import { TasksMcpProvider } from './mcp/definitionProvider';
import { createInputHandlers } from './mcp/inputHandlers';
import { OwnerConnection } from './mcp/ownerConnection';
import { ensureOwnerReady, wireOwnerEndpoint } from './mcp/ownerWiring';
import { ServerHost } from './mcp/serverHost';
import { StdioOwnerChannel } from './mcp/stdioOwner';
import { PendingInputs } from './tasks/pendingInputs';
import { TaskModel } from './tasks/taskModel';
import { notifyCompletions } from './views/completionNotifier';
import { ResultDocuments } from './views/resultDocuments';
import { TasksStatusBar } from './views/statusBar';
import { TasksTreeProvider } from './views/tasksTreeProvider';

let host: ServerHost | undefined;

/** A thin composition root: build, wire, register. Nothing here waits on the server. */
export function activate(context: vscode.ExtensionContext): McpTasksApi {
    const started = Date.now();
    const logger = new Logger(context.extensionMode === vscode.ExtensionMode.Test);
    context.subscriptions.push(logger);
    const log = logger.scoped('extension');
    const serverJs = context.asAbsolutePath('dist/server.js');
    let config = readConfig();
    const current = () => config;

    host = new ServerHost(serverJs, current, logger.scoped('server'));
    const stdioOwner = new StdioOwnerChannel(logger.scoped('stdio'));
    const provider = new TasksMcpProvider(host, stdioOwner, serverJs, current, logger.scoped('provider'));
    context.subscriptions.push(host, stdioOwner, provider, vscode.lm.registerMcpServerDefinitionProvider(PROVIDER_ID, provider));

    const model = new TaskModel();
    const pendingInputs = new PendingInputs();
    const sampling = new SamplingResponder(context.globalState, logger.scoped('sampling'), () => config.samplingModel);
    const owner = new OwnerConnection(model, logger.scoped('owner'), createInputHandlers(model, pendingInputs, sampling));
    const tree = new TasksTreeProvider(model);
    const treeView = vscode.window.createTreeView(Views.tasks, { treeDataProvider: tree, showCollapseAll: true });
    const statusBar = new TasksStatusBar(model);
    const results = new ResultDocuments();
    const startedHere = new Set<string>();
    const ownerWiring = wireOwnerEndpoint(owner, host, stdioOwner, current);
    context.subscriptions.push(owner, tree, treeView, statusBar, results, ownerWiring);
    context.subscriptions.push(notifyCompletions(model, startedHere, treeView));
    context.subscriptions.push(
        model.onDidChange(() => {
            const waiting = model.running().filter(view => view.status === 'input_required').length;
            treeView.badge = waiting > 0 ? { value: waiting, tooltip: `${waiting} task(s) need input` } : undefined;
        }),
        host.onDidChange(() => statusBar.setServerProblem(host?.problem)),
        host.onDidLaunch(() => statusBar.setServerProblem(undefined)),
    );

    const ready = () => ensureOwnerReady(owner, host!, stdioOwner, current);
    context.subscriptions.push(
        ...registerCommands({ logger, host, provider, config: current, owner, model, results, pendingInputs, startedHere, ready, resetSamplingConsent: () => sampling.resetConsent() }),
    );
    if (config.transport === 'stdio') {
        stdioOwner.start();
    } else {
        // One server per window serves Copilot and the sidebar; start it after activation returns.
        setImmediate(() => void host?.ensureStarted().catch(err => log.error(`server start failed: ${(err as Error).message}`)));
    }

    context.subscriptions.push(
        onDidChangeServerConfig(() => {
            const previous = config;
            config = readConfig();
            if (previous.transport === config.transport && previous.defaultTtl === config.defaultTtl && previous.maxTtl === config.maxTtl && previous.maxTasksPerClient === config.maxTasksPerClient && previous.logLevel === config.logLevel) {
                return;
            }
            log.info(`server settings changed (transport ${previous.transport} → ${config.transport}); restarting`);
            if (config.transport === 'stdio') {
                stdioOwner.start();
            }
            // Tell VS Code at once (resolve no longer starts HTTP in stdio mode), then replace our child.
            provider.refresh('settings changed');
            ownerWiring.update();
            void host!.stop().then(() => {
                ownerWiring.update();
                if (config.transport === 'http') {
                    void host?.ensureStarted().catch(err => log.error(`server start failed: ${(err as Error).message}`));
                }
            });
        }),
    );
    log.info(`activated in ${Date.now() - started} ms (transport: ${config.transport})`);

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
        clientEndpointForTests: () => (testMode && host?.url ? { url: host.url, token: host.clientToken } : undefined),
        tasks: testMode ? { model, tree, statusBar, treeView, owner, pendingInputs } : undefined,
    };
}

/** VS Code awaits this: the server child must be gone when the extension host moves on. */
export async function deactivate(): Promise<void> {
    await host?.stop();
    host = undefined;
}
