import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpTasksApi, McpTasksTestApi } from '../../extension/api';
import { waitUntil } from '../support/wait';

export { listAllTasks, type LooseTask } from '../support/taskList';

export const EXTENSION_ID = 'mcp-tasks.mcp-tasks';
/** The tools VS Code should list (deploy_step is internal and hidden). */
export const CORE_TOOL_NAMES = ['greet', 'slow_compute', 'failing_job', 'confirm_delete', 'write_haiku', 'external_job', 'deploy'];
/** The plain task tools the server adds (the extension leaves them on by default). */
export const TASK_TOOL_NAMES = [...CORE_TOOL_NAMES.filter(name => name !== 'greet').map(name => `start_${name}`), 'get_task', 'cancel_task', 'list_tasks'];
export const TOOL_NAMES = [...CORE_TOOL_NAMES, ...TASK_TOOL_NAMES];

/**
 * The manifest strings VS Code left as `%key%` (with their paths): VS Code replaces each from
 * package.nls.json when it reads the extension, so any left means a missing key or file.
 */
export function unresolvedManifestStrings(): string[] {
    const found: string[] = [];
    const walk = (value: unknown, path: string) => {
        if (typeof value === 'string') {
            if (/^%[\w.-]+%$/.test(value)) {
                found.push(`${path} = ${value}`);
            }
        } else if (value && typeof value === 'object') {
            for (const [key, child] of Object.entries(value)) {
                walk(child, `${path}/${key}`);
            }
        }
    };
    walk(vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON, '');
    return found;
}

export async function activateExtension(): Promise<McpTasksApi> {
    const ext = vscode.extensions.getExtension<McpTasksApi>(EXTENSION_ID);
    if (!ext) {
        throw new Error(`extension ${EXTENSION_ID} is not installed`);
    }
    return ext.activate();
}

/** The extension's API with its test hooks, which it gives only under ExtensionMode.Test. */
export async function activateWithHooks(): Promise<McpTasksTestApi> {
    const api: Partial<McpTasksTestApi> & McpTasksApi = await activateExtension();
    if (!api.testing) {
        throw new Error('the extension gave no test hooks: it is not running in ExtensionMode.Test');
    }
    return api as McpTasksTestApi;
}

/** Polls VS Code state (which has no event to wait on here) through the suites' one wait helper; a check that throws means "not yet". */
export function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000, everyMs = 200): Promise<T> {
    return waitUntil(check, what, { timeoutMs, everyMs, retryErrors: true }) as Promise<T>;
}

/**
 * A suite's cleanup (an after hook): every step runs, in order, even when one before it failed or hung,
 * each bounded by `stepMs`, so that one failure leaves the next suites as clean a state as it can;
 * then the hook fails naming each step that did not finish. A step that hangs is left behind, never awaited
 * past its bound: the hook's own timeout must not be what ends it (mocha then moves on while it still runs).
 */
export async function cleanUp(steps: [what: string, step: () => unknown][], stepMs = 60_000): Promise<void> {
    const failed: string[] = [];
    for (const [what, step] of steps) {
        let timer: NodeJS.Timeout | undefined;
        const bound = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not done after ${stepMs / 1000} s`)), stepMs)));
        try {
            await Promise.race([Promise.resolve().then(step), bound]);
        } catch (err) {
            failed.push(`${what}: ${(err as Error).message}`);
        } finally {
            clearTimeout(timer);
        }
    }
    if (failed.length > 0) {
        throw new Error(`cleanup left undone: ${failed.join('; ')}`);
    }
}

/**
 * Waits for the Playwright UI driver (uiDriver.mjs) to write `file` (a screenshot, a JSON report) at
 * or after `since`: the driver has seen that state. Without the driver (no MCP_TASKS_UI_DIR) there is
 * nothing to wait for, unless `required`.
 */
export async function uiArtifact(file: string, since: number, required = false): Promise<string | undefined> {
    const dir = process.env.MCP_TASKS_UI_DIR;
    if (!dir) {
        if (required) {
            throw new Error(`${file}: this test needs the Playwright UI driver of the code-server host`);
        }
        return undefined;
    }
    const path = join(dir, file);
    return waitFor(`the UI driver to write ${file}`, () => ((statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0) >= since ? path : undefined), 60_000, 100);
}

/**
 * Asks the Playwright UI driver for something with a status bar message (uiDriver.mjs reads it) and
 * returns the JSON report it writes to `file` (or the screenshot's path for a .png).
 */
export async function askUi<T>(request: string, file: string): Promise<T> {
    const since = Date.now();
    const shown = vscode.window.setStatusBarMessage(request);
    try {
        const path = (await uiArtifact(file, since, true))!;
        return (file.endsWith('.json') ? JSON.parse(readFileSync(path, 'utf8')) : path) as T;
    } finally {
        shown.dispose();
    }
}

export interface ShownNotification {
    message: string;
    source: string;
    buttons: string[];
}

/**
 * The Notifications Center as the UI driver reads it (notifications-<tag>.json, and a screenshot of the
 * workbench), read again until `wanted` finds a notification or `timeoutMs` passes; then the last read.
 * `click` asks the driver to press that button on a notification offering it.
 */
export async function readNotifications(tag: string, wanted: (note: ShownNotification) => boolean, timeoutMs = 20_000, click?: string): Promise<{ found?: ShownNotification; all: ShownNotification[] }> {
    let attempt = 0;
    let all: ShownNotification[] = [];
    const read = async () => {
        const name = attempt === 0 ? tag : `${tag}-${attempt}`;
        attempt++;
        all = await askUi<ShownNotification[]>(`ui-notifications ${name}${click ? ` :: ${click}` : ''}`, `notifications-${name}.json`);
        // The center's list is drawn lazily: a read during a redraw can list an item twice, once
        // without its buttons (a CI run's crash notice did). The one with buttons is the one drawn whole.
        const matches = all.filter(wanted);
        return matches.find(note => note.buttons.length > 0) ?? matches[0];
    };
    // Read again through the suites' one waiter until `wanted` finds one; a timeout leaves the last read.
    const found = await waitFor(`a notification for ${tag}`, read, timeoutMs, 500).catch(() => undefined);
    return { found, all };
}

/** Our tools as VS Code's MCP client registered them (names like mcp_<server>_<tool>). */
export function ourTools(): Map<string, vscode.LanguageModelToolInformation> {
    const found = new Map<string, vscode.LanguageModelToolInformation>();
    for (const tool of vscode.lm.tools) {
        for (const name of TOOL_NAMES) {
            // start_slow_compute also ends in _slow_compute: it is not taken for slow_compute.
            if (tool.name.startsWith('mcp_') && tool.name.endsWith(`_${name}`) && !tool.name.endsWith(`_start_${name}`) && tool.name.includes('task')) {
                found.set(name, tool);
            }
        }
    }
    return found;
}

/** One of our tools as VS Code's MCP client registered it (mcp_<server>_<name>), by its name on our server. */
export function toolNamed(name: string): vscode.LanguageModelToolInformation | undefined {
    return vscode.lm.tools.find(tool => tool.name.startsWith('mcp_') && tool.name.endsWith(`_${name}`) && !tool.name.endsWith(`_start_${name}`));
}

/** Starts our server in VS Code's own MCP client (what Copilot uses) and waits for its six tools. */
export async function startInVsCode(timeoutMs = 60_000, api?: McpTasksApi): Promise<Map<string, vscode.LanguageModelToolInformation>> {
    return waitFor(
        'the MCP Tasks tools in vscode.lm.tools, from a running server',
        async () => {
            // Always start it: VS Code may list cached tools of a server that is not running.
            await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true, autoTrustChanges: true });
            const after = ourTools();
            if (api && !(await waitFor('the server process', () => api.serverState().pid, 3000).catch(() => undefined))) {
                return undefined;
            }
            return after.size === TOOL_NAMES.length ? after : undefined;
        },
        timeoutMs,
        1000,
    );
}

export async function invoke(tool: vscode.LanguageModelToolInformation, input: object, token?: vscode.CancellationToken): Promise<string> {
    const result = await vscode.lm.invokeTool(tool.name, { input, toolInvocationToken: undefined }, token);
    return result.content.map(part => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
}

/** An SDK client holding the owner credential: sees every client's tasks on the server. */
export async function ownerClient(api: McpTasksTestApi): Promise<Client> {
    return connected(await waitFor('the owner endpoint', () => api.testing.ownerEndpoint()), new Client({ name: 'integration-owner', version: '1.0.0' }));
}

/** An SDK client named `name` on the server's client endpoint, as another MCP client (an agent's CLI) connects. */
export function otherClient(api: McpTasksTestApi, name: string, options?: ConstructorParameters<typeof Client>[1]): Promise<Client> {
    return connected(api.testing.clientEndpoint()!, new Client({ name, version: '1.0.0' }, options));
}

async function connected(endpoint: { url: string; token: string }, client: Client): Promise<Client> {
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: { authorization: `Bearer ${endpoint.token}` } } }));
    return client;
}

export function processAlive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

export async function setTransport(transport: 'http' | 'stdio'): Promise<void> {
    await vscode.workspace.getConfiguration('mcpTasks').update('transport', transport, vscode.ConfigurationTarget.Global);
}

/** Sets the transport and waits until the extension runs in it. */
export async function useTransport(api: McpTasksApi, transport: 'http' | 'stdio'): Promise<void> {
    await setTransport(transport);
    await waitFor(`transport ${transport}`, () => api.transport === transport);
}

/** The common start of a suite: the extension active in http mode, its server up, our owner connection live. */
export async function readyOverHttp(): Promise<McpTasksTestApi> {
    const api = await activateWithHooks();
    await useTransport(api, 'http');
    await api.ensureServer();
    await waitFor('the owner connection', () => api.testing.owner.connected, 30_000);
    return api;
}

/** Ready over HTTP with the Tasks view focused: where a test that reads or clicks the sidebar starts. */
export async function readyWithTasksView(): Promise<McpTasksTestApi> {
    const api = await readyOverHttp();
    await vscode.commands.executeCommand('mcpTasks.tasks.focus');
    return api;
}

/** The Markdown preview tab VS Code shows for a result, by the task's label. */
export function resultPreviewTab(label: string): vscode.Tab | undefined {
    return vscode.window.tabGroups.all
        .flatMap(group => group.tabs)
        .find(tab => tab.input instanceof vscode.TabInputWebview && /markdown\.preview/.test(tab.input.viewType) && tab.label === `Preview ${label}.md`);
}

/**
 * The cleanUp steps that leave the Tasks view as the next suite expects it: no question open, nothing
 * running, no row focused, no rows, the keyboard in the editor and no notifications (a task's ending
 * is announced, and a full Notifications Center hid a later suite's question). `tag` names the UI
 * driver's report.
 */
export function emptyTheView(api: McpTasksTestApi, tag: string): [what: string, step: () => unknown][] {
    return [
        ['close the dialogs and questions', () => vscode.commands.executeCommand('workbench.action.closeQuickOpen')],
        ['cancel what still runs', () => Promise.all(api.testing.model.running().map(view => api.testing.owner.cancel(view.taskId).catch(() => undefined)))],
        // Escape in the view drops its focused row while the rows are there: a focus left on a row that
        // Clear Finished removes stays on its place, and the next row drawn there shows its buttons.
        ['leave no row focused', () => askUi(`ui-keys ${tag} :: Control+0 Escape`, `keys-${tag}.json`)],
        ['clear the rows', () => vscode.commands.executeCommand('mcpTasks.clearFinished')],
        // A focused row shows its buttons over its text in later suites' pictures.
        ['move the keyboard to the editor', () => vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup')],
        ['clear the notifications', () => vscode.commands.executeCommand('notifications.clearAll')],
    ];
}

/**
 * Sets `workbench.colorTheme` (undefined: back to the default) and waits until VS Code has applied it, or
 * 10 s if no change comes (another setting level already chose that theme).
 */
export async function useColorTheme(theme: string | undefined): Promise<void> {
    if (vscode.workspace.getConfiguration('workbench').inspect('colorTheme')?.globalValue === theme) {
        return;
    }
    let listener: vscode.Disposable | undefined;
    const changed = new Promise<void>(done => (listener = vscode.window.onDidChangeActiveColorTheme(() => done())));
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', theme, vscode.ConfigurationTarget.Global);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([changed, new Promise<void>(done => (timer = setTimeout(done, 10_000)))]);
    clearTimeout(timer);
    listener?.dispose();
}

/** Grants workspace trust as a user does: opens the Workspace Trust editor and has the UI driver click Trust. */
export async function grantTrustInEditor(): Promise<void> {
    let granted = false;
    const listener = vscode.workspace.onDidGrantWorkspaceTrust(() => (granted = true));
    await vscode.commands.executeCommand('workbench.trust.manage');
    // The UI driver clicks the editor's Trust button, as a user would.
    const request = vscode.window.setStatusBarMessage('ui-trust-workspace');
    try {
        await waitFor('the trust grant', () => granted || undefined, 120_000);
    } finally {
        request.dispose();
        listener.dispose();
    }
}

/** Starts slow_compute as a task through the Run Tool command, for `seconds` as `label`; returns its task id. */
export async function startSlowCompute(seconds: number, label: string): Promise<string> {
    return (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'slow_compute', args: { seconds, label }, mode: 'task' })) as string;
}

/** Runs slow_compute for a second as `label`, waits for it to finish and opens its result once (the extension keeps that copy); returns its task id. */
export async function finishedAndOpened(api: McpTasksTestApi, label: string): Promise<string> {
    const { model } = api.testing;
    const taskId = await startSlowCompute(1, label);
    const view = await waitFor('the finished task', () => (model.get(taskId)?.status === 'completed' ? model.get(taskId) : undefined), 30_000, 50);
    await vscode.commands.executeCommand('mcpTasks.showResult', view);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    return taskId;
}

/** Starts slow_compute for 300 s as `label` and waits until it runs; returns its task id. */
export async function longRunning(api: McpTasksTestApi, label: string): Promise<string> {
    const taskId = await startSlowCompute(300, label);
    await waitFor('the long task running', () => (api.testing.model.get(taskId)?.status === 'working' ? true : undefined), 30_000, 50);
    return taskId;
}

/**
 * A task whose server died before it finished, as the rows show it once a server is back: lost
 * (the extension's own mark, on a memory store) or, where the new server took the durable store's
 * tasks over (the default), failed saying the server restarted. Either way it never reads as running.
 */
export function endedWithItsServer(view: { lost?: boolean; status: string; statusMessage?: string } | undefined): boolean {
    return view !== undefined && (view.lost === true || (view.status === 'failed' && /server restarted/i.test(view.statusMessage ?? '')));
}

/** A finished task after its server was replaced: kept here and marked (memory), or the new server's own (durable store). */
export function finishedAcrossServers(view: { lost?: boolean; status: string } | undefined): boolean {
    return view !== undefined && (view.lost === true || view.status === 'completed' || view.status === 'cancelled');
}

/** A workspace command declaration a suite made: `remove` takes it back (and the .vscode folder, if the suite made it). */
export interface DeclaredCommands {
    remove(): void;
}

/** Declares `tools` in the workspace's .vscode/mcp-tasks.json, as a user writes it. */
export function declareWorkspaceCommands(tools: object[]): DeclaredCommands {
    const dotVscode = join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.vscode');
    const created = !existsSync(dotVscode);
    mkdirSync(dotVscode, { recursive: true });
    writeFileSync(join(dotVscode, 'mcp-tasks.json'), JSON.stringify({ tools }));
    return {
        remove: () => {
            rmSync(join(dotVscode, 'mcp-tasks.json'), { force: true });
            if (created) {
                rmSync(dotVscode, { recursive: true, force: true });
            }
        },
    };
}
