import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { findLogFile } from '../../extension/commandTools/outputLog';
import { taskLabel, type TaskView } from '../../extension/tasks/taskView';
import { processRunning } from '../../server/src/platform/index';
import { askUi, invoke, readyOverHttp, resultPreviewTab, startInVsCode, toolNamed, uiArtifact, waitFor } from './util';

// Command tools and tasks.json tasks as tools, in a real VS Code: declared by the workspace's
// .vscode/mcp-tasks.json (written here, removed after), called through VS Code's MCP client, seen
// and cancelled in the sidebar, their output followed live. The host runs with workspace trust
// off (every workspace trusted): the untrusted case has its own host and suite (trust.test.ts).

const FIXTURES = resolve(__dirname, '../../../test/integration/fixtures/commands');
const node = process.execPath;
/** The file it_gated waits for before its last line (lines.js). */
const gate = join(tmpdir(), `mcp-tasks-it-gate-${process.pid}`);

function taskOf(api: McpTasksTestApi, toolName: string, exclude: ReadonlySet<string> = new Set()): TaskView | undefined {
    return api.testing.model.all().find(view => view.toolName === toolName && !exclude.has(view.taskId));
}

/** The titles in a Tasks row's context menu, as the UI driver read them after a right click. */
async function rowMenu(row: string): Promise<string[]> {
    const since = Date.now();
    const request = vscode.window.setStatusBarMessage(`ui-row-menu ${row}`);
    try {
        const file = (await uiArtifact(`row-menu-${row}.json`, since, true))!;
        return JSON.parse(readFileSync(file, 'utf8')) as string[];
    } finally {
        request.dispose();
    }
}

describe('command tools in VS Code', () => {
    let api: McpTasksTestApi;
    let folder: string;
    let dotVscode: string;
    let createdDotVscode = false;

    before(async () => {
        api = await readyOverHttp();
        await startInVsCode(60_000, api);
        folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
        dotVscode = join(folder, '.vscode');
        createdDotVscode = !existsSync(dotVscode);
        mkdirSync(dotVscode, { recursive: true });
        writeFileSync(
            join(dotVscode, 'mcp-tasks.json'),
            JSON.stringify({
                tools: [
                    {
                        name: 'it_lines',
                        description: 'Prints numbered lines.',
                        command: [node, join(FIXTURES, 'lines.js'), '{count}', '{every}'],
                        parameters: { count: { type: 'number', description: 'How many lines' }, every: { type: 'number', description: 'Milliseconds between lines' } },
                    },
                    {
                        name: 'it_gated',
                        description: 'Prints numbered lines and holds the last one until the test opens its gate.',
                        command: [node, join(FIXTURES, 'lines.js'), '{count}', '0', gate],
                        parameters: { count: { type: 'number', description: 'How many lines' } },
                    },
                    { name: 'it_tree', description: 'Starts grandchildren and waits.', command: [node, join(FIXTURES, 'tree.js')], killGraceMs: 1000 },
                ],
            }),
        );
        await waitFor('the workspace command tools in vscode.lm.tools', () => toolNamed('it_lines') && toolNamed('it_gated') && toolNamed('it_tree'), 60_000, 250);
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
    });

    after(async () => {
        await vscode.workspace.getConfiguration('mcpTasks').update('exposeVsCodeTasks', undefined, vscode.ConfigurationTarget.Global);
        rmSync(join(dotVscode, 'mcp-tasks.json'), { force: true });
        rmSync(join(dotVscode, 'tasks.json'), { force: true });
        rmSync(gate, { force: true });
        if (createdDotVscode) {
            rmSync(dotVscode, { recursive: true, force: true });
        }
        await waitFor('the command tools gone', () => (api.testing.commandTools.tools.size === 0 ? true : (api.testing.commandTools.update(), undefined)), 30_000);
    });

    it('a workspace command tool called through vscode.lm.invokeTool completes with its output', async () => {
        const text = await invoke(toolNamed('it_lines')!, { count: 3, every: 0 });
        assert.match(text, /line 3\/3/);
        // VS Code hands the model the structured result when the tool declares an output schema.
        assert.match(text, /"exitCode":0/);
        assert.equal(taskOf(api, 'it_lines')?.status, 'completed');
    });

    it('Show Output follows the log live while the command runs, and keeps it after the end', async () => {
        const before = new Set(api.testing.model.all().map(view => view.taskId));
        rmSync(gate, { force: true });
        const call = invoke(toolNamed('it_gated')!, { count: 40 });
        const view = await waitFor('the it_gated task in the sidebar', () => taskOf(api, 'it_gated', before));
        const editor = (await vscode.commands.executeCommand<vscode.TextEditor>('mcpTasks.showOutput', view))!;
        assert.equal(editor.document.uri.scheme, 'mcp-tasks-output');
        // The command holds its last line until the gate opens: the view shows lines while it still runs.
        await waitFor('live lines in the output view', () => /line 39\/40/.test(editor.document.getText()) || undefined, 30_000, 50);
        assert.equal(api.testing.model.get(view.taskId)?.status, 'working', 'the task still runs while its lines show');
        assert.ok(!/line 40\/40/.test(editor.document.getText()));
        writeFileSync(gate, '');
        await call;
        await waitFor('the last line in the output view', () => /line 40\/40/.test(editor.document.getText()) || undefined, 30_000, 50);
        assert.equal(api.testing.model.get(view.taskId)?.status, 'completed');
        const reopened = await vscode.workspace.openTextDocument(editor.document.uri);
        assert.match(reopened.getText(), /line 1\/40[\s\S]*line 40\/40/);
    });

    it('Show Output gets a line that lands while VS Code is still opening the document', async () => {
        // VS Code drops a change signalled for a document it is still opening. The document's first
        // read here waits until the command's last line is in the log and the view has signalled it,
        // so that signal lands in that moment every time (under load it did by chance: the line
        // never showed, copilotStopped's pids line among them).
        const outputs = api.testing.outputs;
        const provide = outputs.provideTextDocumentContent.bind(outputs);
        // Held as VS Code sees it: a provider may answer later.
        const provider: vscode.TextDocumentContentProvider = outputs;
        const before = new Set(api.testing.model.all().map(view => view.taskId));
        rmSync(gate, { force: true });
        const call = invoke(toolNamed('it_gated')!, { count: 2 });
        const view = await waitFor('the it_gated task in the sidebar', () => taskOf(api, 'it_gated', before));
        let held = false;
        provider.provideTextDocumentContent = async (uri: vscode.Uri) => {
            const text = provide(uri);
            if (uri.query === view.taskId && !held) {
                held = true;
                const signalled = new Promise<void>(done => {
                    const listener = outputs.onDidChange(changed => {
                        const log = findLogFile(api.testing.commandTools.launch.logDir, 'it_gated', view.taskId);
                        if (changed.query === view.taskId && log !== undefined && /line 2\/2/.test(readFileSync(log, 'utf8'))) {
                            listener.dispose();
                            done();
                        }
                    });
                });
                writeFileSync(gate, '');
                await signalled;
            }
            return text;
        };
        try {
            const editor = (await vscode.commands.executeCommand<vscode.TextEditor>('mcpTasks.showOutput', view))!;
            await call;
            assert.ok(held, 'the first read was held');
            await waitFor('the line that landed while the document opened', () => /line 2\/2/.test(editor.document.getText()) || undefined, 30_000, 50);
        } finally {
            provider.provideTextDocumentContent = provide;
            await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        }
    });

    it('two runs of one command show their output in two tabs with distinct titles', async () => {
        const before = new Set(api.testing.model.all().map(view => view.taskId));
        await invoke(toolNamed('it_lines')!, { count: 1, every: 0 });
        await invoke(toolNamed('it_lines')!, { count: 2, every: 0 });
        const runs = api.testing.model.all().filter(view => view.toolName === 'it_lines' && !before.has(view.taskId));
        assert.equal(runs.length, 2);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        for (const run of runs) {
            await vscode.commands.executeCommand('mcpTasks.showOutput', run);
        }
        const titles = vscode.window.tabGroups.all
            .flatMap(group => group.tabs)
            .filter(tab => tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === 'mcp-tasks-output')
            .map(tab => tab.label);
        assert.equal(titles.length, 2, titles.join(' | '));
        assert.notEqual(titles[0], titles[1], 'each tab says which run it is');
        for (const title of titles) {
            assert.match(title, / \d\d\.\d\d\.\d\d( \(\d+\))?\.log$/, 'the run and the time it started');
        }
        await askUi('ui-shot output-tabs-two-runs', 'output-tabs-two-runs.png');
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    it("Show Result keeps a command's output lines, and its title bar's Show Output opens the full log", async () => {
        const before = new Set(api.testing.model.all().map(view => view.taskId));
        await invoke(toolNamed('it_lines')!, { count: 3, every: 0 });
        const view = await waitFor('the it_lines task', () => taskOf(api, 'it_lines', before));
        await waitFor('completed', () => api.testing.model.get(view.taskId)?.status === 'completed' || undefined, 30_000, 50);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        await vscode.commands.executeCommand('mcpTasks.showResult', api.testing.model.get(view.taskId));
        await waitFor('the rendered result', () => resultPreviewTab(taskLabel(view)));
        const drawn = await askUi<{ pre: string[]; text: string }>('ui-result command-output', 'result-command-output.json');
        // The digest's lines stay lines, in a preformatted block.
        assert.ok(drawn.pre.some(block => /line 1\/3\n[\s\S]*line 3\/3\n/.test(block)), JSON.stringify(drawn.pre));
        assert.match(drawn.text, /The full log opens with Show Output in this tab’s title bar/);
        // The result's way to the full log: Show Output in its title bar, clicked as a user does, opens the task's output.
        await askUi('ui-editor-action Show Output :: result-show-output', 'editor-action-result-show-output.json');
        const output = await waitFor('the output view of that task', () => {
            const uri = vscode.window.activeTextEditor?.document.uri;
            return uri?.scheme === 'mcp-tasks-output' && uri.query === view.taskId ? vscode.window.activeTextEditor : undefined;
        });
        assert.match(output!.document.getText(), /line 1\/3[\s\S]*line 3\/3/);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    it("Show Output is in a command task's row menu, and not in a demo task's", async () => {
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
        const demo = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'failing_job', args: {}, mode: 'task' })) as string;
        await waitFor('the failing_job task failed', () => api.testing.model.get(demo)?.status === 'failed' || undefined, 60_000, 50);
        const command = await rowMenu('it_lines');
        assert.ok(command.includes('Show Result') && command.includes('Show Output'), command.join(' | '));
        const other = await rowMenu('failing_job');
        assert.ok(other.includes('Show Result'), other.join(' | '));
        assert.ok(!other.includes('Show Output'), other.join(' | '));
    });

    it("the sidebar's Cancel kills the command's whole process tree", async () => {
        const before = new Set(api.testing.model.all().map(view => view.taskId));
        const cancelCall = new vscode.CancellationTokenSource();
        const call = invoke(toolNamed('it_tree')!, {}, cancelCall.token).catch((err: Error) => err.message);
        const view = await waitFor('the it_tree task in the sidebar', () => taskOf(api, 'it_tree', before));
        const editor = (await vscode.commands.executeCommand<vscode.TextEditor>('mcpTasks.showOutput', view))!;
        const pidsLine = await waitFor('the pids line', () => /pids (\[[\d,]+\])/.exec(editor.document.getText())?.[1], 30_000, 50);
        const pids = JSON.parse(pidsLine) as number[];
        assert.equal(pids.length, 3);
        assert.ok(pids.every(processRunning), 'the command and its grandchildren run');
        // The UI driver clicks the row's inline Cancel, as a user would.
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
        const request = vscode.window.setStatusBarMessage('ui-row-action it_tree :: Cancel Task');
        try {
            await waitFor('cancelled by the click', () => api.testing.model.get(view.taskId)?.status === 'cancelled' || undefined, 60_000, 50);
        } finally {
            request.dispose();
        }
        assert.equal(api.testing.model.get(view.taskId)?.statusMessage, 'Cancelled from the MCP Tasks sidebar');
        // The task is cancelled only once the group is gone.
        assert.deepEqual(pids.filter(processRunning), []);
        cancelCall.cancel();
        await call;
    });

    it('a tasks.json task runs through its tool: terminal, problem matcher, exit code; cancel stops the VS Code task and Show Output brings back its terminal with what it printed', async function () {
        this.timeout(240_000);
        const problemMatcher = {
            owner: 'mcp-tasks-it',
            fileLocation: ['relative', '${workspaceFolder}'],
            pattern: { regexp: '^(.*):(\\d+):(\\d+): (error|warning): (.*)$', file: 1, line: 2, column: 3, severity: 4, message: 5 },
        };
        writeFileSync(
            join(dotVscode, 'tasks.json'),
            JSON.stringify({
                version: '2.0.0',
                tasks: [
                    { label: 'it_ok', type: 'process', command: node, args: [join(FIXTURES, 'lines.js'), '2'], problemMatcher: [] },
                    { label: 'it_problem', type: 'process', command: node, args: [join(FIXTURES, 'problem.js')], problemMatcher },
                    { label: 'it_wait', type: 'process', command: node, args: [join(FIXTURES, 'tree.js')], problemMatcher: [] },
                    { label: 'it_hidden', type: 'process', command: node, args: ['-e', ''], problemMatcher: [] },
                ],
            }),
        );
        await vscode.workspace.getConfiguration('mcpTasks').update('exposeVsCodeTasks', ['it_ok', 'it_problem', 'it_wait'], vscode.ConfigurationTarget.Global);
        await waitFor('the VS Code task tools', () => toolNamed('vscode_task_it_ok') && toolNamed('vscode_task_it_problem') && toolNamed('vscode_task_it_wait'), 60_000, 250);
        assert.equal(toolNamed('vscode_task_it_hidden'), undefined, 'a label the setting does not name is no tool');

        const ok = await invoke(toolNamed('vscode_task_it_ok')!, {});
        assert.match(ok, /exited with code 0|"exitCode":0/);

        const readme = vscode.Uri.file(join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'README.md'));
        const failed = await invoke(toolNamed('vscode_task_it_problem')!, {}).catch((err: Error) => err.message);
        assert.match(failed, /exit 1|"exitCode":1/);
        await waitFor('the problem matcher’s diagnostic', () => vscode.languages.getDiagnostics(readme).find(d => /fixture problem from a VS Code task/.test(d.message)), 30_000);

        const started: { name: string; pid: number }[] = [];
        const listener = vscode.tasks.onDidStartTaskProcess(event => started.push({ name: event.execution.task.name, pid: event.processId }));
        // The terminal drawn as DOM text (not WebGL), so the UI driver can read what it shows.
        const terminalSettings = vscode.workspace.getConfiguration('terminal.integrated');
        await terminalSettings.update('gpuAcceleration', 'off', vscode.ConfigurationTarget.Global);
        let reads = 0;
        const terminalText = async () => (await askUi<{ text: string }>(`ui-terminal vscode-task-${++reads}`, `terminal-vscode-task-${reads}.json`)).text;
        try {
            const before = new Set(api.testing.model.all().map(view => view.taskId));
            const call = invoke(toolNamed('vscode_task_it_wait')!, {}).catch((err: Error) => err.message);
            const view = await waitFor('the it_wait task in the sidebar', () => taskOf(api, 'vscode_task_it_wait', before));
            // Its row reads the task's label, not its tool name.
            assert.equal(String(api.testing.tree.getTreeItem(view).label), 'Running: it_wait');
            const pid = (await waitFor('the VS Code task process', () => started.find(s => s.name === 'it_wait'), 30_000)).pid;
            assert.ok(vscode.tasks.taskExecutions.some(execution => execution.task.name === 'it_wait'), 'VS Code runs the task');
            assert.ok(processRunning(pid));
            // What it prints, as its terminal shows it, before the cancel.
            await waitFor('its pids in its terminal', async () => (/pids \[\d+,\d+,\d+\]/.test(await terminalText()) ? true : undefined), 60_000, 250);
            await vscode.commands.executeCommand('mcpTasks.cancelTask', api.testing.model.get(view.taskId));
            await waitFor('cancelled', () => api.testing.model.get(view.taskId)?.status === 'cancelled' || undefined, 30_000, 50);
            await waitFor('the VS Code task terminated', () => !vscode.tasks.taskExecutions.some(execution => execution.task.name === 'it_wait') || undefined, 30_000, 50);
            await waitFor('its process gone', () => !processRunning(pid) || undefined, 30_000, 50);
            assert.deepEqual(api.testing.vscodeTasks.running(), []);
            await call;
            // What it printed stays: its row offers Show Output, which brings its terminal back.
            const cancelled = api.testing.model.get(view.taskId)!;
            assert.match(String(api.testing.tree.getTreeItem(cancelled).contextValue), /\.output/);
            await vscode.commands.executeCommand('workbench.action.closePanel');
            await vscode.commands.executeCommand('mcpTasks.showOutput', cancelled);
            await waitFor('its terminal shown', () => (/^it_wait\b/.test(vscode.window.activeTerminal?.name ?? '') ? true : undefined), 10_000, 50);
            const shown = await askUi<{ text: string }>('ui-terminal vscode-task-cancelled', 'terminal-vscode-task-cancelled.json');
            assert.match(shown.text, /pids \[\d+,\d+,\d+\][\s\S]*Terminal will be reused/, `the terminal still shows what the task printed: ${JSON.stringify(shown)}`);
        } finally {
            listener.dispose();
            await terminalSettings.update('gpuAcceleration', undefined, vscode.ConfigurationTarget.Global);
        }
    });
});
