import type * as vscode from 'vscode';
import type { Transport } from './config';
import type { OwnerConnection } from './mcp/ownerConnection';
import type { PendingInputs } from './tasks/pendingInputs';
import type { TaskModel } from './tasks/taskModel';
import type { TaskView } from './tasks/taskView';
import type { TasksStatusBar } from './views/statusBar';
import type { TasksTreeProvider } from './views/tasksTreeProvider';

/** What `activate` returns: for tests and for other extensions that want to find the server. */
export interface McpTasksApi {
    readonly transport: Transport;
    /** The HTTP server this window launched (http mode), or the stdio server's owner endpoint. */
    serverState(): { transport: Transport; pid?: number; url?: string };
    /** Starts the HTTP server now, instead of waiting for VS Code to resolve the definition. */
    ensureServer(): Promise<{ pid?: number; url?: string }>;
    /** The owner endpoint and credential; only in ExtensionMode.Test (tests check the server side). */
    ownerEndpointForTests(): { url: string; token: string } | undefined;
    /** The HTTP URL and the ordinary client token VS Code's MCP client gets; only in ExtensionMode.Test. */
    clientEndpointForTests(): { url: string; token: string } | undefined;
    /** The sidebar's internals, exposed only in ExtensionMode.Test. */
    readonly tasks?: { model: TaskModel; tree: TasksTreeProvider; statusBar: TasksStatusBar; treeView: vscode.TreeView<TaskView>; owner: OwnerConnection; pendingInputs: PendingInputs };
}
