import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { readRows } from './drawnRows';
import { askUi, cleanUp, declareWorkspaceCommands, type DeclaredCommands, readyWithTasksView, toolNamed, startInVsCode, waitFor } from './util';

const FIXTURES = resolve(__dirname, '../../../test/integration/fixtures/commands');
const LINES = 20;
const server = () => vscode.workspace.getConfiguration('mcpTasks.server');

/**
 * A server that crashed and cannot come back (its settings are refused) while a command ran and rows
 * are listed. Before, the lost command row offered no Show Output though its partial log was there,
 * and the view, whose welcome shows only with no rows, said nothing about the dead server.
 * The command prints 19 lines, then holds its last one until the test's gate file exists.
 */
describe('rows from a server that is down', () => {
    let api: McpTasksTestApi;
    let declared: DeclaredCommands | undefined;
    const gateDir = mkdtempSync(join(tmpdir(), 'mcp-tasks-gate-'));
    const gate = join(gateDir, 'go');

    before(async () => {
        api = await readyWithTasksView();
        await startInVsCode(60_000, api);
        declared = declareWorkspaceCommands([{ name: 'it_down', description: 'Prints numbered lines.', command: [process.execPath, join(FIXTURES, 'lines.js'), String(LINES), '0', gate] }]);
        await waitFor('it_down in vscode.lm.tools', () => toolNamed('it_down'), 60_000, 250);
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
    });

    after(async function () {
        this.timeout(3 * 60_000);
        await cleanUp([
            ['let the command end', () => writeFileSync(gate, '')],
            ['close the editors', () => vscode.commands.executeCommand('workbench.action.closeAllEditors')],
            ['the default TTL back', async () => {
                if (server().inspect('defaultTtl')?.globalValue !== undefined) {
                    await server().update('defaultTtl', undefined, vscode.ConfigurationTarget.Global);
                }
            }],
            ['the server back', () => api && waitFor('the server back', () => (api.testing.owner.connected && api.serverState().pid ? true : undefined), 60_000)],
            ['remove the declaration', () => {
                declared?.remove();
                rmSync(gateDir, { recursive: true, force: true });
            }],
            ['the command tools gone', () => api && waitFor('the command tools gone', () => (api.testing.commandTools.tools.size === 0 ? true : (api.testing.commandTools.update(), undefined)), 30_000)],
        ]);
    });

    it('a lost command row offers Show Output of its partial log, and the view says the server stopped and how to start it again', async () => {
        const { model, treeView } = api.testing;
        const taskId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'it_down', args: {}, mode: 'task' })) as string;
        const held = `line ${LINES - 1}/${LINES}`;
        await waitFor('the command at its held line', () => (model.get(taskId)?.progress?.message === held ? true : undefined), 60_000, 100);
        assert.ok(!treeView.message, 'nothing to say while the server runs');

        // Settings the server refuses: it keeps running with the old ones, and a restart cannot start it.
        await server().update('defaultTtl', '48h', vscode.ConfigurationTarget.Global);
        const { pid } = api.serverState();
        assert.ok(pid);
        process.kill(pid, 'SIGKILL');
        await waitFor('the server down for good', () => (/could not start/.test(treeView.message ?? '') ? true : undefined), 30_000, 100);
        const lost = model.get(taskId);
        assert.equal(lost?.lost, true, 'the running command is lost with its server');

        // The view says so above the old rows, with the way back.
        assert.match(treeView.message!, /^MCP Tasks server could not start: .+\. These rows are not updated while the server is down: Restart Server/);
        const drawn = await readRows('server-down', view => view.message !== '');
        assert.equal(drawn.message, treeView.message, 'the view draws the message above its rows');
        assert.ok(drawn.rows.some(row => /: it_down$/.test(row.label)), JSON.stringify(drawn.rows));
        const buttons = await askUi<{ name: string; enabled: boolean }[]>('ui-title-buttons server-down', 'title-buttons-server-down.json');
        assert.ok(buttons.some(button => /^Restart Server/.test(button.name) && button.enabled), `Restart Server in the title bar: ${JSON.stringify(buttons)}`);

        // The lost row offers Show Output, which opens what the command printed before the crash.
        const menu = await askUi<string[]>('ui-row-menu it_down', 'row-menu-it_down.json');
        assert.ok(menu.includes('Show Output'), `the lost row's menu: ${JSON.stringify(menu)}`);
        const editor = (await vscode.commands.executeCommand<vscode.TextEditor>('mcpTasks.showOutput', model.get(taskId)))!;
        await waitFor('the partial log in the document', () => (editor.document.getText().includes(held) ? true : undefined), 30_000, 100);
        await askUi('ui-shot server-down-lost-output', 'server-down-lost-output.png');

        // Fixed settings bring the server back, and the message goes.
        await server().update('defaultTtl', undefined, vscode.ConfigurationTarget.Global);
        await waitFor('the server back', () => (api.testing.owner.connected && api.serverState().pid ? true : undefined), 60_000);
        await waitFor('the message gone', () => (treeView.message ? undefined : true), 10_000, 100);
    });
});
