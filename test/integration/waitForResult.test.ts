import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import type { TaskView } from '../../extension/tasks/taskView';
import { readNotifications, readyWithTasksView, resultPreviewTab, type ShownNotification, waitFor } from './util';

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
        const run = vscode.commands.executeCommand('mcpTasks.runTool', { name: 'slow_compute', args: { seconds: 90, label }, mode: 'wait' });
        const view = await waitFor('the run as a row of the Tasks view', () => findTask(label), 10_000, 50);
        await waitFor('progress from the task', () => ((api.testing.model.get(view.taskId)?.progress?.progress ?? 0) >= 2 ? true : undefined), 30_000, 100);
        // As a user sees it in the Notifications Center: the percent and the task's words, and Cancel, which the driver clicks.
        const progress = (note: ShownNotification) => /Running Demo: Slow Compute/.test(note.message) && /\d+% · wait-cancel: \d+\/90 s/.test(note.message);
        const { found, all } = await readNotifications('wait-for-result', progress, 30_000);
        assert.ok(found, `the progress notification with the percent and the task’s message: ${JSON.stringify(all)}`);
        assert.ok(found.buttons.includes('Cancel'), `buttons: ${found.buttons.join(', ')}`);
        await readNotifications('wait-for-result-cancel', progress, 10_000, 'Cancel');
        await waitFor('the task cancelled', () => (api.testing.model.get(view.taskId)?.status === 'cancelled' ? true : undefined), 30_000, 100);
        assert.equal(await run, view.taskId);
        const uri = (await vscode.commands.executeCommand('mcpTasks.showResult', api.testing.model.get(view.taskId))) as vscode.Uri;
        assert.match((await vscode.workspace.openTextDocument(uri)).getText(), /\*\*cancelled\*\* — Cancelled by you$/m);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });
});
