/** Replaced at bundle time by esbuild; the fallback serves tests that run the sources. */
declare const __MCP_TASKS_VERSION__: string | undefined;
export const SERVER_VERSION: string = typeof __MCP_TASKS_VERSION__ === 'string' ? __MCP_TASKS_VERSION__ : '0.0.0-dev';
