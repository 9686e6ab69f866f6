/** Every id the manifest and the code share, in one place (package.json must match). */
export const EXTENSION_ID = 'mcp-tasks.mcp-tasks';
export const PROVIDER_ID = 'mcpTasks.servers';
export const SERVER_LABEL = 'MCP Tasks';
/** How VS Code's MCP service names our server: "<extension id>/<definition label>". */
export const SERVER_ID = `${EXTENSION_ID}/${SERVER_LABEL}`;
export const OUTPUT_CHANNEL_NAME = 'MCP Tasks';

export const Commands = {
    showLog: 'mcpTasks.showLog',
    restartServer: 'mcpTasks.restartServer',
    runTool: 'mcpTasks.runTool',
    cancelTask: 'mcpTasks.cancelTask',
    /** Cancel after asking: the row's context menu and its Delete key (the inline button cancels at once). */
    cancelTaskConfirm: 'mcpTasks.cancelTaskConfirm',
    showResult: 'mcpTasks.showResult',
    /** Enter on the Tasks view's focused row: what a click on it does (commands.ts). */
    openRow: 'mcpTasks.openRow',
    /** Space on the Tasks view's focused row: VS Code's own Space (select, and preview what it opens), except that a question never opens. */
    selectRow: 'mcpTasks.selectRow',
    copyTaskId: 'mcpTasks.copyTaskId',
    clearFinished: 'mcpTasks.clearFinished',
    refresh: 'mcpTasks.refresh',
    focusTasks: 'mcpTasks.tasks.focus',
    respond: 'mcpTasks.respond',
    runAgain: 'mcpTasks.runAgain',
    resetSamplingConsent: 'mcpTasks.resetSamplingConsent',
    showOutput: 'mcpTasks.showOutput',
    /** Show Output for the task whose result the active tab shows (the result's title-bar button). */
    showResultOutput: 'mcpTasks.showResultOutput',
} as const;

/** Respond's argument from the status bar item, which vanishes once nothing waits: an answer moves the keyboard on. */
export const RESPOND_FROM_STATUS_BAR = 'statusBar';

/** VS Code's own command that opens the chat; `{ query, isPartialQuery }` (chatActions.ts, IChatViewOpenOptions). */
export const CHAT_OPEN_COMMAND = 'workbench.action.chat.open';

export const Views = {
    container: 'mcpTasks',
    tasks: 'mcpTasks.tasks',
} as const;

/** TreeItem.contextValue values; package.json menus match on them. */
export const ContextValues = {
    running: 'task.running',
    needsInput: 'task.input',
    finished: 'task.done',
    /** A finished sub-task: its tool is its parent's internal step, so it cannot run again alone. */
    finishedStep: 'task.done.step',
    lost: 'task.lost',
    /** A task that had finished on a server that is gone: its result is readable if the extension kept it. */
    lostFinished: 'task.done.lost',
    /** Appended to a row's state when its task runs a command whose output Show Output shows: "task.done.output" (a lost row's only when its log is known: "task.lost.output"). */
    outputFacet: '.output',
} as const;

export const RESULT_SCHEME = 'mcp-tasks-result';
/** A command task's output, live: mcp-tasks-output:/<label>.log?<taskId>. */
export const OUTPUT_SCHEME = 'mcp-tasks-output';

export const SETTINGS_SECTION = 'mcpTasks';

export const Settings = {
    transport: 'transport',
    demoTools: 'demoTools',
    defaultTtl: 'server.defaultTtl',
    maxTtl: 'server.maxTtl',
    maxTasksPerClient: 'server.maxTasksPerClient',
    logLevel: 'server.logLevel',
    taskTools: 'server.taskTools',
    abandonAfter: 'server.abandonAfter',
    stoppedWaiting: 'server.stoppedWaiting',
    samplingModel: 'sampling.model',
    commands: 'commands',
    exposeVsCodeTasks: 'exposeVsCodeTasks',
    wrap: 'wrap',
} as const;
