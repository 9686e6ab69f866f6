import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as l10n from '@vscode/l10n';
import * as vscode from 'vscode';
import { createApi, type McpTasksApi } from './api';
import { registerRowKeys } from './views/rowKeys';
import type { TasksRow } from './views/tasksTreeProvider';
import { registerCommands, type RowRun } from './commands';
import { CommandTools } from './commandTools/commandTools';
import { OutputDocuments, registerShowOutput } from './commandTools/outputDocuments';
import { VsCodeTaskJobs } from './commandTools/vscodeTaskJobs';
import { WrapServers } from './wrap/wrapServers';
import { watchDemoToolsWhileWrapping } from './wrap/demoToolsNotice';
import { ConfigWatcher } from './config';
import { watchTransportSetting } from './settingProblems';
import { SamplingResponder } from './lm/sampling';
import { Logger } from './logger';
import { createInputHandlers } from './owner/inputHandlers';
import { OwnerConnection } from './owner/ownerConnection';
import { registerServer, type ServerController } from './launcher/serverController';
import { PendingInputs } from './tasks/pendingInputs';
import { ResultCache } from './tasks/resultCache';
import { TaskModel } from './tasks/taskModel';
import type { TaskView } from './tasks/taskView';
import { CompletionNotifier, type CommandRunner } from './views/completionNotifier';
import { untilStopAllowed } from './views/confirmStop';
import { ContextKeyTracker } from './views/contextKeys';
import { ResultDocuments } from './views/resultDocuments';
import { RestoredResults } from './views/restoredResults';
import { registerStatusBar } from './views/statusBar';
import { registerTasksView } from './views/tasksView';
import { ResultOutputButton } from './views/resultOutputButton';
import { showViewMessage } from './views/viewMessage';

let server: ServerController | undefined;

/**
 * A thin composition root: one register call per feature. Nothing here starts the server: VS Code
 * starts it by resolving the definition, or our own commands do when they need it.
 */
export function activate(context: vscode.ExtensionContext): McpTasksApi {
    const started = Date.now();
    // The vscode-free modules (task and form texts) translate through @vscode/l10n: give it the
    // bundle VS Code loaded for the display language. English has none: the source strings show.
    if (vscode.l10n.bundle) {
        l10n.config({ contents: vscode.l10n.bundle });
    }
    const logger = new Logger(context.extensionMode === vscode.ExtensionMode.Test);
    context.subscriptions.push(logger);
    const storageDir = (context.storageUri ?? context.globalStorageUri).fsPath;

    const model = new TaskModel();
    const pendingInputs = new PendingInputs();
    const sampling = new SamplingResponder(context.globalState, logger.scoped('sampling'), () => config.current.samplingModel);
    // Written before any server starts: the server is launched with this file and reloads it on change.
    const commandTools = new CommandTools(storageDir, logger.scoped('commands'));
    const vscodeTasks = new VsCodeTaskJobs(() => commandTools.vscodeTaskLabels, logger.scoped('commands'));
    // Also written before any server starts; a change to it restarts the server, like a setting.
    const wrap = new WrapServers(storageDir, logger.scoped('wrap'), commandTools.onDidReadFiles);
    const config = new ConfigWatcher(wrap);
    context.subscriptions.push(commandTools, vscodeTasks, wrap, config, watchTransportSetting(), watchDemoToolsWhileWrapping(config));
    // In the workspace's storage, so a reloaded window still opens them; with no workspace, in memory only.
    const keptResults = new ResultCache<CallToolResult, TaskView>({
        dir: context.storageUri && join(context.storageUri.fsPath, 'results'),
        onError: message => logger.scoped('results').warn(message),
    });
    model.restoreKept(keptResults.kept().flatMap(kept => (kept.view ? [kept.view] : [])));
    const owner = new OwnerConnection(model, logger.scoped('owner'), createInputHandlers(model, pendingInputs, sampling), undefined, vscodeTasks, keptResults);
    context.subscriptions.push(owner);

    server = registerServer(context, logger, config, owner, commandTools.launch, () => untilStopAllowed(model), text => wrap.launchFile(text));
    const outputs = new OutputDocuments(commandTools.launch.logDir, model);
    context.subscriptions.push(outputs);
    // A lost row's server is gone: it offers Show Output only when its command's log is there to read.
    const rowHasOutput = (view: TaskView) => (view.lost ? outputs.hasOutput(view) : commandTools.hasOutput(view.toolName) || vscodeTasks.hasTerminal(view.taskId));
    const { tree, treeView } = registerTasksView(context, model, rowHasOutput, () => commandTools.waitingForTrust);
    // A command tool declared since a row was drawn gives its rows Show Output.
    context.subscriptions.push(commandTools.onDidChange(() => tree.refresh()));
    const statusBar = registerStatusBar(context, model, server);
    context.subscriptions.push(showViewMessage(treeView, model, server, tree.onDidListTasks));
    // A result tab VS Code restores after a reload finds its result again (the kept copy, or the server's).
    const results = new ResultDocuments(new RestoredResults({ model, owner, ready: () => server!.ready() }));
    registerShowOutput(context, model, outputs, vscodeTasks);
    const resultOutput = new ResultOutputButton(results, model, view => outputs.hasOutput(view) || vscodeTasks.hasTerminal(view.taskId));
    context.subscriptions.push(resultOutput);
    const startedHere = new Set<string>();
    const executedCommands: { command: string; args: unknown[] }[] = [];
    const completions = new CompletionNotifier(model, startedHere, treeView, commandRunner(context, executedCommands));
    context.subscriptions.push(results, completions, new ContextKeyTracker({ model, server: owner, problem: server, activeResult: resultOutput }));
    // Kept only under test: the suite reads it; a user's clicks need no record.
    const rowRuns: RowRun[] | undefined = context.extensionMode === vscode.ExtensionMode.Test ? [] : undefined;
    const cancelAsks: string[] | undefined = context.extensionMode === vscode.ExtensionMode.Test ? [] : undefined;
    registerRowKeys(context, { model, treeView, hasOutput: rowHasOutput });
    registerCommands(context, { logger, server, owner, model, results, pendingInputs, startedHere, resetSamplingConsent: () => sampling.resetConsent(), runsCommand: name => commandTools.hasOutput(name), waitingForTrust: () => commandTools.waitingForTrust, rowRuns, cancelAsks, focusRow: taskId => focusRow(treeView, model, taskId), focusAfterAnswer: taskId => (treeView.visible ? focusRow(treeView, model, taskId) : vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup')) });

    logger.scoped('extension').info(`activated in ${Date.now() - started} ms (transport: ${server.mode.transport})`);
    return createApi(context, server, { model, tree, treeView, statusBar, owner, pendingInputs, completions, executedCommands, rowRuns: rowRuns ?? [], cancelAsks: cancelAsks ?? [], commandTools, outputs, vscodeTasks, wrap, logDir: context.logUri.fsPath });
}

/** The task's row, focused (not selected: a selection would move with it); nothing if it is not in the view. */
async function focusRow(treeView: vscode.TreeView<TasksRow>, model: TaskModel, taskId: string): Promise<void> {
    const view = model.get(taskId);
    if (view) {
        await treeView.reveal(view, { focus: true, select: false });
    }
}

/** Under test, the commands the notifier runs are recorded too (the suite asserts on them; chat may be absent). */
function commandRunner(context: vscode.ExtensionContext, executed: { command: string; args: unknown[] }[]): CommandRunner | undefined {
    if (context.extensionMode !== vscode.ExtensionMode.Test) {
        return undefined;
    }
    return (command, ...args) => {
        executed.push({ command, args });
        return vscode.commands.executeCommand(command, ...args).then(undefined, () => undefined);
    };
}

/** VS Code awaits this: the server child must be gone when the extension host moves on. */
export async function deactivate(): Promise<void> {
    await server?.stop();
    server = undefined;
}
