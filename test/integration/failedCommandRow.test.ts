import * as assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { readRows } from './drawnRows';
import { askUi, cleanUp, declareWorkspaceCommands, type DeclaredCommands, readyWithTasksView, startInVsCode, toolNamed, waitFor } from './util';

const FIXTURES = resolve(__dirname, '../../../test/integration/fixtures/commands');
const TITLE = 'Nightly checks';

/**
 * A failed command's row, as drawn in VS Code (issue 46 item 7, which had unit tests only): one line
 * without ⏎ glyphs or the log's path, named by the title its declaration gives rather than the tool's
 * name for a model, and a tooltip that keeps the message's lines apart instead of one paragraph.
 */
describe("a failed command's row", () => {
    let api: McpTasksTestApi;
    let declared: DeclaredCommands | undefined;

    before(async () => {
        api = await readyWithTasksView();
        await startInVsCode(60_000, api);
        declared = declareWorkspaceCommands([{ name: 'it_nightly', title: TITLE, description: 'Runs the nightly checks.', command: [process.execPath, join(FIXTURES, 'failing.js')] }]);
        await waitFor('it_nightly in vscode.lm.tools', () => toolNamed('it_nightly'), 60_000, 250);
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
    });

    after(async function () {
        this.timeout(2 * 60_000);
        await cleanUp([
            ['remove the declaration', () => {
                declared?.remove();
            }],
            ['the command tools gone', () => api && waitFor('the command tools gone', () => (api.testing.commandTools.tools.size === 0 ? true : (api.testing.commandTools.update(), undefined)), 30_000)],
        ]);
    });

    it('shows one line under the declared title, and a tooltip in lines', async () => {
        const { model } = api.testing;
        const taskId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'it_nightly', args: {}, mode: 'task' })) as string;
        const failed = await waitFor('the command failed', () => (model.get(taskId)?.status === 'failed' ? model.get(taskId) : undefined), 60_000, 100);
        // What the server said has several lines and the log's path: the row must not show them as they are.
        assert.match(failed.statusMessage ?? '', /\n/);
        assert.match(failed.statusMessage ?? '', /Full log: /);

        const drawn = await readRows('failed-command', view => view.rows.some(row => row.label === `Failed: ${TITLE}`));
        const row = drawn.rows.find(candidate => candidate.label === `Failed: ${TITLE}`);
        assert.ok(row, `a row under the declared title: ${JSON.stringify(drawn.rows)}`);
        assert.ok(!drawn.rows.some(candidate => /it_nightly/.test(candidate.label)), 'not under the name for a model');
        // The headline (and the first failing line, when it fits), cut to one short line; then how long it ran.
        assert.match(row.description, /^exit 1 after [\d.]+ ?m?s: .+ · \d+s$/);
        assert.ok(row.description.length <= 80 + ' · 59s'.length, `one short line: ${row.description}`);
        assert.doesNotMatch(row.description, /[\n\r⏎]|Full log|command-logs|\.log\b|read_output|it_nightly/);

        const tooltip = await askUi<string[]>('ui-row-tooltip Nightly', 'row-tooltip-Nightly.json');
        const line = (pattern: RegExp) => tooltip.findIndex(text => pattern.test(text));
        assert.ok(line(/^Nightly checks — failed$/) >= 0, `the tooltip's lines: ${JSON.stringify(tooltip)}`);
        const headline = line(/^exit 1 after .+: /);
        const first = line(/^Error: client bundle is 301 KB, over its 296 KB budget$/);
        const second = line(/^Error: 2 links in docs\/WALKTHROUGH\.md are broken$/);
        assert.ok(headline >= 0 && first > headline && second > first, `the headline and each failing line on a line of its own: ${JSON.stringify(tooltip)}`);
        assert.ok(!tooltip.some(text => /read_output/.test(text)), JSON.stringify(tooltip));
    });
});
