import * as vscode from 'vscode';
import type { CommandTools } from './commandTools/commandTools';
import type { OutputDocuments } from './commandTools/outputDocuments';
import type { VsCodeTaskJobs } from './commandTools/vscodeTaskJobs';
import type { WrapServers } from './wrap/wrapServers';
import type { Transport } from './config';
import type { OwnerConnection } from './owner/ownerConnection';
import type { ServerController } from './launcher/serverController';
import type { PendingInputs } from './tasks/pendingInputs';
import type { TaskModel } from './tasks/taskModel';
import type { CompletionNotifier } from './views/completionNotifier';
import type { TasksStatusBar } from './views/statusBar';
import type { RowRun } from './commands';
import type { TasksRow, TasksTreeProvider } from './views/tasksTreeProvider';

/** What `activate` returns: for other extensions that want to find the server. */
export interface McpTasksApi {
    readonly transport: Transport;
    /** The HTTP server this window launched (http mode), or the stdio server's owner endpoint. */
    serverState(): { transport: Transport; pid?: number; url?: string };
    /** Starts the server now, instead of waiting for VS Code to resolve the definition. */
    ensureServer(): Promise<{ pid?: number; url?: string }>;
}

/** The sidebar's internals and the server's credentials, for the integration suite only. */
export interface TestHooks {
    /** The owner endpoint and credential (tests check the server side). */
    ownerEndpoint(): { url: string; token: string } | undefined;
    /** The HTTP URL and the ordinary client token VS Code's MCP client gets. */
    clientEndpoint(): { url: string; token: string } | undefined;
    readonly model: TaskModel;
    readonly tree: TasksTreeProvider;
    readonly treeView: vscode.TreeView<TasksRow>;
    readonly statusBar: TasksStatusBar;
    readonly owner: OwnerConnection;
    readonly pendingInputs: PendingInputs;
    /** The completion notifier: what it offered, and its continue-in-chat action. */
    readonly completions: CompletionNotifier;
    /** Commands the notifier ran, in order. */
    readonly executedCommands: readonly { command: string; args: unknown[] }[];
    /** Each Run Again clicked on a row, and whether the row's settle guard ignored it. */
    readonly rowRuns: readonly RowRun[];
    /** Each task a Cancel Task… question was asked about, in order (a test host refuses the modal dialog itself). */
    readonly cancelAsks: readonly string[];
    /** The command tools this window serves, and the file and log folder it hands the server. */
    readonly commandTools: CommandTools;
    /** The read-only documents that follow command logs (Show Output). */
    readonly outputs: OutputDocuments;
    /** The tasks.json tasks running as owner jobs. */
    readonly vscodeTasks: VsCodeTaskJobs;
    /** The MCP servers this window's server wraps. */
    readonly wrap: WrapServers;
    /** The folder of the extension's log files (the MCP Tasks channel's lines, the server's stderr among them). */
    readonly logDir: string;
    /** True while new settings wait for running tasks before they restart the server. */
    settingsWaiting(): boolean;
}

/** `activate`'s return value when VS Code runs the extension under test. */
export interface McpTasksTestApi extends McpTasksApi {
    readonly testing: TestHooks;
}

type Internals = Omit<TestHooks, 'ownerEndpoint' | 'clientEndpoint' | 'settingsWaiting'>;

/** The one ExtensionMode.Test gate: only a test run gets the hooks. */
export function createApi(context: vscode.ExtensionContext, server: ServerController, internals: Internals): McpTasksApi {
    const api: McpTasksApi = {
        get transport() {
            return server.mode.transport;
        },
        serverState: () => ({ transport: server.mode.transport, ...server.mode.state }),
        ensureServer: async () => {
            await server.mode.start();
            return server.mode.state;
        },
    };
    if (context.extensionMode !== vscode.ExtensionMode.Test) {
        return api;
    }
    const testing: TestHooks = {
        ...internals,
        ownerEndpoint: () => {
            const endpoint = server.mode.ownerEndpoint;
            return endpoint && { url: endpoint.url, token: endpoint.token };
        },
        clientEndpoint: () => server.mode.clientEndpoint,
        settingsWaiting: () => server.settingsWaiting,
    };
    return Object.assign(api, { testing }) satisfies McpTasksTestApi;
}
