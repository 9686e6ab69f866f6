import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { askUi, readyWithTasksView, startSlowCompute, waitFor } from './util';

/** Needs the Playwright UI driver: clicks a row's inline buttons as a hurried user does. */
describe('inline clicks on a row that changes under the pointer', () => {
    let api: McpTasksTestApi;

    before(async () => (api = await readyWithTasksView()));

    it('a second click on the spot of Cancel, once the row has changed there, does not run the task again', async () => {
        const { model } = api.testing;
        const label = 'double-cancel';
        const taskId = await startSlowCompute(60, label);
        await waitFor('the row running', () => (model.get(taskId)?.status === 'working' ? true : undefined), 10_000, 50);
        // A real user aims at a row that has been there a while: wait until its buttons are trusted (the settle guard).
        await waitFor('the row settled', () => (model.justChanged(taskId) ? undefined : true), 10_000, 50);
        const report = await askUi<{ secondClickOn: string }>(`ui-row-twice ${label} :: Cancel Task`, `row-twice-${label}.json`);
        await waitFor('cancelled', () => (model.get(taskId)?.status === 'cancelled' ? true : undefined), 10_000, 50);
        // A second click that hit Run Again reaches the extension before the driver reports: wait until it was handled.
        if (/Run Again/.test(report.secondClickOn)) {
            await waitFor('the click on Run Again handled', () => api.testing.rowRuns.find(run => run.taskId === taskId), 10_000, 50);
        }
        const runs = model.all().filter(view => view.toolName === 'slow_compute' && view.args.label === label);
        assert.deepEqual(runs.map(view => view.taskId), [taskId], `the second click (on "${report.secondClickOn}") started another run`);
        assert.doesNotMatch(report.secondClickOn, /Run Again/, 'Run Again appeared where Cancel was');
        assert.deepEqual(api.testing.rowRuns.filter(run => run.taskId === taskId && !run.ignored), [], 'no Run Again on this row went through');
        // The result it may have opened is harmless; close it for the next suite.
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });
});
