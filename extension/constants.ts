/** Every id the manifest and the code share, in one place (package.json must match). */
export const EXTENSION_ID = 'mcp-tasks.mcp-tasks';
export const PROVIDER_ID = 'mcpTasks.servers';
export const SERVER_LABEL = 'MCP Tasks';
export const OUTPUT_CHANNEL_NAME = 'MCP Tasks';

export const Commands = {
    showLog: 'mcpTasks.showLog',
    restartServer: 'mcpTasks.restartServer',
} as const;

export const SETTINGS_SECTION = 'mcpTasks';

export const Settings = {
    transport: 'transport',
    defaultTtl: 'server.defaultTtl',
    maxTtl: 'server.maxTtl',
    maxTasksPerClient: 'server.maxTasksPerClient',
    logLevel: 'server.logLevel',
} as const;
