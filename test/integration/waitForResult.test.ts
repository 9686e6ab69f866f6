import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import type { TaskView } from '../../extension/tasks/taskView';
import { askUi, readNotifications, readyWithTasksView, resultPreviewTab, type ShownNotification, waitFor } from './util';

// Run Tool's "Wait for the result" (mode 'wait') on a tool that can run as a task: its run is a row
// of the Tasks view, a progress notification follows it, and that notification's Cancel cancels the task.

describe('Run Tool: Wait for the result', () => {
    let api: McpTasksTestApi;

    const findTask = (label: string): TaskView | undefined => api.testing.model.all().find(view => view.args.label === label);

    before(async () => (api = await readyWithTasksView()));

    it('runs as a task in the tree and opens its result when it completes', async () => {
        const label = 'wait-done';
        const run = vscode.commands.executeCommand('mcpTasks.runTool', { name: 'slow_compute', args: { seconds: 1, label }, mode: 'wait' });
        const view = await waitFor('the run as a row of the Tasks view', () => findTask(label), 10_000, 50);
        assert.ok(api.testing.tree.getChildren().some(row => 'taskId' in row && row.taskId === view.taskId), 'listed at the top level of the tree');
        assert.equal(await run, view.taskId, 'Run Tool returns the task it waited for');
        assert.equal(api.testing.model.get(view.taskId)?.status, 'completed');
        await waitFor('the result opened', () => resultPreviewTab(`slow_compute: ${label}`), 30_000);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    it("shows the task's progress in a notification whose Cancel cancels the task, which then reads Cancelled by you", async function () {
        this.timeout(180_000);
        const label = 'wait-cancel';
        await vscode.commands.executeCommand('notifications.clearAll');
        // What a screen reader is handed while the task runs: recorded from before it starts.
        await askUi('ui-live-record wait-cancel', 'live-record-wait-cancel.json');
        const run = vscode.commands.executeCommand('mcpTasks.runTool', { name: 'slow_compute', args: { seconds: 90, label }, mode: 'wait' });
        const view = await waitFor('the run as a row of the Tasks view', () => findTask(label), 10_000, 50);
        await waitFor('progress from the task', () => ((api.testing.model.get(view.taskId)?.progress?.progress ?? 0) >= 6 ? true : undefined), 30_000, 100);
        const heard = await askUi<string[]>('ui-live-read wait-cancel', 'live-wait-cancel.json');
        const aboutRun = heard.filter(text => /Slow Compute|wait-cancel|running \(the MCP Tasks view/.test(text));
        // Six progress ticks and more: the run is announced once or twice (as its notification appears and as its words are set), not per tick.
        assert.ok(aboutRun.length >= 1 && aboutRun.length <= 3, `announced ${aboutRun.length} times: ${JSON.stringify(heard)}`);
        // As a user sees it in the Notifications Center: the run, and Cancel, which the driver clicks (the row has the percent and the task's words).
        const progress = (note: ShownNotification) => /Running Demo: Slow Compute/.test(note.message);
        const { found, all } = await readNotifications('wait-for-result', progress, 30_000);
        assert.ok(found, `the progress notification of the run: ${JSON.stringify(all)}`);
        assert.ok(found.buttons.includes('Cancel'), `buttons: ${found.buttons.join(', ')}`);
        await readNotifications('wait-for-result-cancel', progress, 10_000, 'Cancel');
        await waitFor('the task cancelled', () => (api.testing.model.get(view.taskId)?.status === 'cancelled' ? true : undefined), 30_000, 100);
        assert.equal(await run, view.taskId);
        const uri = (await vscode.commands.executeCommand('mcpTasks.showResult', api.testing.model.get(view.taskId))) as vscode.Uri;
        assert.match((await vscode.workspace.openTextDocument(uri)).getText(), /\*\*cancelled\*\* — Cancelled by you$/m);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });
});
