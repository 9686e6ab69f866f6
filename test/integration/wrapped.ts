import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { ownerClient, startInVsCode, toolNamed, waitFor } from './util';

/** The pinned @modelcontextprotocol/server-everything (a devDependency), started as `node <it> stdio`. */
export const EVERYTHING = resolve(__dirname, '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** A `mcpTasks.wrap` entry for server-everything over stdio, run by the extension host's own Node. */
export function everything(sync: string[] = []): Record<string, unknown> {
    return { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: { ELECTRON_RUN_AS_NODE: '1' }, sync };
}

/** The tool names the (restarted) server lists on its owner connection. */
export async function servedTools(api: McpTasksTestApi): Promise<string[]> {
    const client = await ownerClient(api);
    try {
        return (await client.listTools()).tools.map(tool => tool.name);
    } finally {
        await client.close();
    }
}

/**
 * Sets `mcpTasks.wrap` (user settings; undefined removes it) and waits until the restarted server
 * lists `tools` and VS Code's MCP client has them (it is told to start the server again).
 */
export async function setWrap(api: McpTasksTestApi, servers: Record<string, unknown> | undefined, tools: string[]): Promise<Map<string, vscode.LanguageModelToolInformation>> {
    await restarted(api, () => vscode.workspace.getConfiguration('mcpTasks').update('wrap', servers, vscode.ConfigurationTarget.Global));
    return waitForTools(api, tools);
}

/** Clears `mcpTasks.wrap` and waits until VS Code has the restarted server's tools: the other suites want the demonstration tools a wrapping server leaves out. */
export async function unwrap(api: McpTasksTestApi): Promise<void> {
    await vscode.workspace.getConfiguration('mcpTasks').update('wrap', undefined, vscode.ConfigurationTarget.Global);
    await startInVsCode(120_000, api);
}

/**
 * Makes one change that restarts the server and waits for the new server: the old one may list
 * the same tools (server-everything under another name), so its tools prove nothing.
 */
export async function restarted(api: McpTasksTestApi, change: () => unknown): Promise<void> {
    const before = await waitFor('the running server', () => api.serverState().pid);
    await change();
    await waitFor('the restarted server', () => {
        const pid = api.serverState().pid;
        return pid !== undefined && pid !== before && api.testing.owner.connected ? true : undefined;
    }, 90_000, 200);
}

/** Waits until the server lists `tools` and VS Code's MCP client has them. */
export async function waitForTools(api: McpTasksTestApi, tools: string[]): Promise<Map<string, vscode.LanguageModelToolInformation>> {
    await waitFor(`the server to list ${tools.join(', ')}`, async () => {
        const served = await servedTools(api);
        return tools.every(tool => served.includes(tool)) ? true : undefined;
    }, 90_000, 500);
    return waitFor(
        `${tools.join(', ')} in vscode.lm.tools`,
        async () => {
            await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true, autoTrustChanges: true });
            const found = new Map(tools.map(tool => [tool, toolNamed(tool)!] as const));
            return [...found.values()].every(Boolean) ? found : undefined;
        },
        90_000,
        1000,
    );
}

/** Whether the extension's log (the server's stderr among it) has a line matching `pattern`. */
export function logHas(api: McpTasksTestApi, pattern: RegExp): boolean {
    const logs = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap(entry => (entry.isDirectory() ? logs(join(dir, entry.name)) : entry.name.endsWith('.log') ? [join(dir, entry.name)] : []));
    const dir = api.testing.logDir;
    return statSync(dir, { throwIfNoEntry: false }) !== undefined && logs(dir).some(file => pattern.test(readFileSync(file, 'utf8')));
}
