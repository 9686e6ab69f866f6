import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { readRows, rowOf } from './drawnRows';
import { askUi, readyWithTasksView, resultPreviewTab, startSlowCompute, waitFor } from './util';

/** Needs the Playwright UI driver: what a user sees in the sidebar, at its default width. */
describe('task rows as drawn in the sidebar', () => {
    let api: McpTasksTestApi;

    before(async () => (api = await readyWithTasksView()));

    it('a running row shows its key argument, status, progress and time in a 300 px sidebar, and the view shows a progress bar', async () => {
        const { model } = api.testing;
        const label = 'quarterly report for the finance team';
        const taskId = await startSlowCompute(30, label);
        await waitFor('progress', () => ((model.get(taskId)?.progress?.progress ?? 0) > 0 ? true : undefined), 10_000, 50);
        // Run Tool into an empty view leaves the keyboard on the new row, whose buttons then show over its
        // text: read it as a user who has moved on does (Escape leaves the row, the editor takes the keyboard).
        await askUi('ui-keys rows-away :: Control+0 Escape', 'keys-rows-away.json');
        await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
        const drawn = await readRows('running', view => view.rows.some(r => r.label === 'Running: quarterly repor…' && /^[1-9]/.test(r.description)) && view.viewProgress);
        assert.ok(drawn.sidebarWidth > 0 && drawn.sidebarWidth <= 300, `the sidebar is ${drawn.sidebarWidth} px wide`);
        const row = rowOf(drawn, 'Running: quarterly repor…');
        assert.equal(row.visibleLabel, row.label, 'the label shows whole');
        assert.match(row.visibleDescription, /^[1-9]\d*% · <1m/, 'progress and time show beside it');
        assert.equal(row.description.endsWith(' · slow_compute'), true, row.description);
        assert.equal(drawn.viewProgress, true, 'the view shows its progress bar while a task runs');

        await vscode.commands.executeCommand('mcpTasks.cancelTask', model.get(taskId));
        await waitFor('cancelled', () => model.get(taskId)?.status === 'cancelled', 10_000, 50);
        assert.deepEqual(model.running(), [], 'nothing else runs');
        const idle = await readRows('idle', view => !view.viewProgress);
        assert.equal(idle.viewProgress, false, 'no progress bar once nothing runs');
    });

    it('with workbench.reduceMotion on, nothing turns: the running row, the status bar and the view stand still', async () => {
        const { model } = api.testing;
        const workbench = vscode.workspace.getConfiguration('workbench');
        await workbench.update('reduceMotion', 'on', vscode.ConfigurationTarget.Global);
        try {
            const taskId = await startSlowCompute(30, 'still');
            await waitFor('running', () => (model.get(taskId)?.status === 'working' ? true : undefined), 10_000, 50);
            const still = await readRows('reduced-motion', view => view.rows.some(r => r.label === 'Running: still'));
            assert.equal(rowOf(still, 'Running: still').spinning, false, 'the running row does not spin');
            assert.equal(still.statusSpinning, false, 'the status bar does not spin');
            assert.equal(still.viewProgress, false, 'no moving progress bar');
            // Back to the default: the same row turns again, without a new task.
            await workbench.update('reduceMotion', undefined, vscode.ConfigurationTarget.Global);
            const moving = await readRows('motion-back', view => view.rows.some(r => r.label === 'Running: still' && r.spinning) && view.statusSpinning);
            assert.equal(rowOf(moving, 'Running: still').spinning, true, 'spins again once motion is back');
            await vscode.commands.executeCommand('mcpTasks.cancelTask', model.get(taskId));
        } finally {
            await workbench.update('reduceMotion', undefined, vscode.ConfigurationTarget.Global);
        }
    });

    it("a failed row says why without hovering, and its Run Again starts the same tool again", async () => {
        const { model } = api.testing;
        const first = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'failing_job', args: {}, mode: 'task' })) as string;
        await waitFor('the job to fail', () => model.get(first)?.status === 'failed', 10_000, 50);
        const row = rowOf(await readRows('failed', view => view.rows.some(r => r.label === 'Failed: failing_job')), 'Failed: failing_job');
        // At 300 px the reason's start shows; the rest is in the tooltip and the result.
        assert.match(row.visibleDescription, /^Job failed/, 'the reason shows in the row');

        // A click within a moment of the row changing state is ignored on purpose (it was meant for the button
        // there before): a user reads the row first, so click once it has settled, and the first click counts.
        await waitFor('the failed row settled', () => (model.justChanged(first) ? undefined : true), 10_000, 50);
        const clicksBefore = api.testing.rowRuns.length;
        // Earlier suites ran failing_job too: only a task that is new after the click counts.
        const existing = new Set(model.all().map(view => view.taskId));
        const request = vscode.window.setStatusBarMessage('ui-row-action failing_job :: Run Again');
        try {
            const again = await waitFor('a second failing_job task, started by the click', () => model.all().find(view => view.toolName === 'failing_job' && !existing.has(view.taskId)), 15_000, 50);
            assert.deepEqual(api.testing.rowRuns.slice(clicksBefore), [{ taskId: first, ignored: false }], 'the first click ran it');
            assert.deepEqual(again.args, model.get(first)!.args);
            await waitFor('the second run to end', () => (again.status === 'failed' ? true : undefined), 10_000, 50);
        } finally {
            request.dispose();
        }
    });

    it('Show Result on a finished row opens the rendered result under the task\'s name; a direct call shows no made-up id', async () => {
        const { model } = api.testing;
        const label = 'result-shown';
        const taskId = await startSlowCompute(0.5, label);
        await waitFor('the task to complete', () => model.get(taskId)?.status === 'completed', 10_000, 50);
        const request = vscode.window.setStatusBarMessage(`ui-row-action ${label} :: Show Result`);
        try {
            await waitFor('the rendered result in a tab named for the task', () => resultPreviewTab(`slow_compute: ${label}`), 60_000, 50);
        } finally {
            request.dispose();
        }
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

        await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'greet', args: { name: 'Ada' }, mode: 'wait' });
        await waitFor('the direct call rendered', () => resultPreviewTab('greet'), 10_000, 50);
        // The preview reads the result document as it renders it.
        const doc = await waitFor('the preview to read the result', () => vscode.workspace.textDocuments.find(d => d.uri.scheme === 'mcp-tasks-result' && d.uri.path === '/greet.md'), 10_000, 50);
        assert.match(doc.getText(), /Direct call \(not a task\)/);
        assert.doesNotMatch(doc.getText(), /call-\d/);
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    });

    it("a deploy's finished steps are listed in the order they ran, named by the step alone", async () => {
        const { model } = api.testing;
        const parentId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'deploy', args: { app: 'rows-order' }, mode: 'task' })) as string;
        await waitFor('the deploy to complete', () => model.get(parentId)?.status === 'completed', 20_000, 50);
        await waitFor('its three steps', () => (model.children(parentId).length === 3 ? true : undefined), 5000, 50);
        const drawn = await readRows('deploy', view => {
            const at = view.rows.findIndex(row => row.label === 'Completed: rows-order');
            return at >= 0 && view.rows.slice(at + 1, at + 4).every(row => row.label.startsWith('Completed: '));
        });
        const parentAt = drawn.rows.findIndex(row => row.label === 'Completed: rows-order');
        assert.ok(parentAt >= 0, 'the deploy row is drawn');
        const steps = drawn.rows.slice(parentAt + 1, parentAt + 4);
        assert.deepEqual(
            steps.map(row => [row.level, row.label]),
            [
                [2, 'Completed: build'],
                [2, 'Completed: test'],
                [2, 'Completed: push'],
            ],
        );
        for (const step of steps) {
            assert.match(step.visibleDescription, /^\d+s$/, `no tool name or internal prefix on a step: ${JSON.stringify(step)}`);
        }
    });
});
