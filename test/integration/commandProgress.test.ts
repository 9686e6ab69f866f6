import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { isTerminal } from '../../extension/tasks/taskView';
import { readRows } from './drawnRows';
import { askUi, cleanUp, declareWorkspaceCommands, type DeclaredCommands, readyWithTasksView, startInVsCode, toolNamed, waitFor } from './util';

const FIXTURES = resolve(__dirname, '../../../test/integration/fixtures/commands');
const LINES = 200;

/**
 * A running command's row shows its latest output line (the server's progress message), and Show Output
 * opens on the log's last lines and follows them. Before, the row showed only "running · <1m" and the
 * log opened at line 1. The command prints 199 lines, then holds its last one until the test's gate file exists.
 */
describe('a running command shows its progress', () => {
    let api: McpTasksTestApi;
    let declared: DeclaredCommands | undefined;
    const gateDir = mkdtempSync(join(tmpdir(), 'mcp-tasks-gate-'));
    const gate = join(gateDir, 'go');

    before(async () => {
        api = await readyWithTasksView();
        await startInVsCode(60_000, api);
        declared = declareWorkspaceCommands([{ name: 'it_lines', description: 'Prints numbered lines.', command: [process.execPath, join(FIXTURES, 'lines.js'), String(LINES), '0', gate] }]);
        // Listed by the server (VS Code hears of its new tool list): Run Tool can start it.
        await waitFor('it_lines in vscode.lm.tools', () => toolNamed('it_lines'), 60_000, 250);
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
    });

    after(async function () {
        this.timeout(3 * 60_000);
        await cleanUp([
            ['let the command end', () => writeFileSync(gate, '')],
            ['close the editors', () => vscode.commands.executeCommand('workbench.action.closeAllEditors')],
            ['remove the declaration', () => {
                declared?.remove();
                rmSync(gateDir, { recursive: true, force: true });
            }],
            ['the command tools gone', () => api && waitFor('the command tools gone', () => (api.testing.commandTools.tools.size === 0 ? true : (api.testing.commandTools.update(), undefined)), 30_000)],
        ]);
    });

    it('the row shows the latest output line, and Show Output opens on the last lines and follows them', async () => {
        const { model } = api.testing;
        const taskId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'it_lines', args: {}, mode: 'task' })) as string;
        assert.ok(taskId);
        const held = `line ${LINES - 1}/${LINES}`;
        await waitFor('the progress at the held line', () => (model.get(taskId)?.progress?.message === held ? true : undefined), 60_000, 100);
        assert.ok(!isTerminal(model.get(taskId)!.status), 'still running');
        const drawn = await readRows('command-progress', rows => rows.rows.some(row => row.label === 'Running: it_lines' && row.description.includes(held)));
        const row = drawn.rows.find(candidate => candidate.label === 'Running: it_lines');
        assert.ok(row && row.description.startsWith(held), JSON.stringify(drawn.rows));

        const editor = (await vscode.commands.executeCommand<vscode.TextEditor>('mcpTasks.showOutput', model.get(taskId)))!;
        await waitFor('the log in the document', () => (editor.document.getText().includes(held) ? true : undefined), 30_000, 100);
        const lastLine = () => editor.document.lineCount - 1;
        await waitFor('the last lines in sight', () => (editor.visibleRanges.some(range => range.end.line >= lastLine() - 1) ? true : undefined), 30_000, 100);
        await askUi('ui-shot command-row-live-output', 'command-row-live-output.png');

        // The command prints its last line: the open log follows it.
        writeFileSync(gate, '');
        await waitFor('the last line in the document', () => (editor.document.getText().includes(`line ${LINES}/${LINES}`) ? true : undefined), 30_000, 100);
        await waitFor('the new last line in sight', () => (editor.visibleRanges.some(range => range.end.line >= lastLine() - 1) ? true : undefined), 30_000, 100);
        await waitFor('the task completed', () => (model.get(taskId)?.status === 'completed' ? true : undefined), 30_000, 100);
    });
});
