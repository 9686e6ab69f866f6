import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import type { TaskView } from '../../extension/tasks/taskView';
import { progressPercent } from '../../extension/tasks/taskView';
import { invoke, ownerClient, startInVsCode, toolNamed, waitFor } from './util';

/** The pinned @modelcontextprotocol/server-everything (a devDependency), started as `node <it> stdio`. */
export const EVERYTHING = resolve(__dirname, '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** A `mcpTasks.wrap` entry for server-everything over stdio, run by the extension host's own Node. */
export function everything(sync: string[] = []): Record<string, unknown> {
    return { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: { ELECTRON_RUN_AS_NODE: '1' }, sync };
}

/** Runs server-everything under a tap that logs each progress update it sends (fixtures/progress-tap.mjs). */
const PROGRESS_TAP = resolve(__dirname, '../../../test/integration/fixtures/progress-tap.mjs');

/** A `mcpTasks.wrap` entry for server-everything (as everything()) that appends each progress update it sends to `log` (see sentProgress). */
export function tappedEverything(log: string, sync: string[] = []): Record<string, unknown> {
    return { ...everything(sync), args: [PROGRESS_TAP, log, EVERYTHING, 'stdio'] };
}

/** The progress updates a tapped server-everything has sent so far, in order. */
export function sentProgress(log: string): { token: string | number; progress: number }[] {
    return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map(line => JSON.parse(line) as { token: string | number; progress: number }) : [];
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

/** Whether the UI driver wrote a screenshot `<prefix>*.png` at or after `since` (readRows may retry under a suffixed tag). */
export function screenshotSince(prefix: string, since: number): true | undefined {
    const dir = process.env.MCP_TASKS_UI_DIR;
    assert.ok(dir, 'this suite needs the Playwright UI driver of the code-server host');
    return readdirSync(dir).some(file => file.startsWith(prefix) && file.endsWith('.png') && statSync(join(dir, file)).mtimeMs >= since) || undefined;
}

/** server-everything's tool that reports progress for as long as it is asked to run. */
export const LONG = 'trigger-long-running-operation';
/** Its row's name: the title server-everything declares for it (rows show a tool's declared title). */
export const LONG_TITLE = 'Trigger Long Running Operation Tool';

/**
 * Calls a wrapped server's long tool the way Copilot does (vscode.lm.invokeTool), 60 steps over
 * 120 s, and waits for its task in the sidebar with the wrapped server's progress; `settled` says
 * how the call ended.
 */
export async function startLongCall(api: McpTasksTestApi, tool: vscode.LanguageModelToolInformation): Promise<{ view: TaskView; settled: Promise<string> }> {
    const { model } = api.testing;
    const before = new Set(model.all().map(view => view.taskId));
    const settled = invoke(tool, { duration: 120, steps: 60 }).then(
        () => 'resolved',
        (err: Error) => `rejected: ${err.message}`,
    );
    const view = await waitFor('the wrapped call as a task in the sidebar', () => model.all().find(v => v.toolName === LONG && !before.has(v.taskId)), 60_000, 50);
    assert.equal(view.status, 'working');
    await waitFor('progress from the wrapped server', () => ((progressPercent(view.progress) ?? 0) > 0 ? true : undefined), 30_000, 100);
    return { view, settled };
}

/** Cancels the row's task as the sidebar's Cancel does; the call fails and the gateway cancels the call on `server` at once. */
export async function cancelFromSidebar(api: McpTasksTestApi, view: TaskView, settled: Promise<string>, server: string): Promise<void> {
    await vscode.commands.executeCommand('mcpTasks.cancelTask', view);
    await waitFor('cancelled', () => (view.status === 'cancelled' ? true : undefined), 15_000, 20);
    assert.equal(view.statusMessage, 'Cancelled from the MCP Tasks sidebar');
    assert.match(await settled, /rejected/);
    // Aborting the downstream call is what sends it notifications/cancelled, not left to run out its 120 s.
    await waitFor('the gateway to log the downstream cancel', () => (logHas(api, new RegExp(`\\[${server}\\] ${LONG}: cancelled; sent the wrapped server notifications/cancelled`)) ? true : undefined), 30_000, 500);
}
