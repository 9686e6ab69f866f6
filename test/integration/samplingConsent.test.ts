import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { deniedByUser } from '../../extension/tasks/taskView';
import { readRows } from './drawnRows';
import { readNotifications, readyWithTasksView, uiArtifact, waitFor } from './util';
import { readFileSync } from 'node:fs';

interface PickReport {
    title: string;
    placeholder: string;
    choices: { label: string; description: string }[];
    active?: { label: string };
}

/** Needs the Playwright UI driver and the fixture language model: the consent question as a user meets it. */
describe("the language model consent question", () => {
    let api: McpTasksTestApi;

    before(async () => {
        api = await readyWithTasksView();
        // Asked afresh, whatever an earlier suite allowed.
        await vscode.commands.executeCommand('mcpTasks.resetSamplingConsent');
    });

    it('names the task and what it asks, and comes back from the status bar until answered', async () => {
        const { model } = api.testing;
        const topic = 'ui-consent-later';
        const taskId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'write_haiku', args: { topic }, mode: 'task' })) as string;
        await waitFor('the task waiting for consent', () => (model.get(taskId)?.status === 'input_required' ? true : undefined), 20_000, 50);

        const { found, all } = await readNotifications('sampling-consent', note => note.message.includes(topic));
        assert.ok(found, `no consent question; the center holds ${JSON.stringify(all)}`);
        assert.match(found.message, new RegExp(`^write_haiku: ${topic} asks .+ for a reply to: “Write a haiku about ${topic}”\\. Allow it\\?$`));
        assert.deepEqual(found.buttons, ['Deny', 'Allow', 'Allow always'], 'the primary (first) button is the safe one');

        // Its notification is out of sight: the status bar's "needs input" brings the question back.
        const since = Date.now();
        const request = vscode.window.setStatusBarMessage(`ui-respond ${topic} via status`);
        try {
            const report = JSON.parse(readFileSync((await uiArtifact('consent.json', since, true))!, 'utf8')) as PickReport;
            assert.match(report.title, new RegExp(`^write_haiku: ${topic} asks .+ for a reply$`));
            assert.equal(report.placeholder, `“Write a haiku about ${topic}” — allow it?`);
            assert.deepEqual(report.choices.map(choice => choice.label), ['Deny', 'Allow', 'Allow always']);
            assert.equal(report.active?.label, 'Deny', 'Enter alone denies');
        } finally {
            request.dispose();
        }
        await waitFor('the haiku', () => (model.get(taskId)?.status === 'completed' ? true : undefined), 20_000, 50);
    });

    it('Deny ends the task as "denied by you", the user\'s choice, not a failure of the work', async () => {
        const { model } = api.testing;
        await vscode.commands.executeCommand('mcpTasks.resetSamplingConsent');
        const topic = 'ui-consent-deny';
        const taskId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'write_haiku', args: { topic }, mode: 'task' })) as string;
        await waitFor('the task waiting for consent', () => (model.get(taskId)?.status === 'input_required' ? true : undefined), 20_000, 50);
        // The user presses Deny on the consent notification.
        const { found, all } = await readNotifications('sampling-consent-deny', note => note.message.includes(topic), 20_000, 'Deny');
        assert.ok(found, `no consent question; the center holds ${JSON.stringify(all)}`);
        const view = await waitFor('the task ended', () => (model.get(taskId)?.status === 'failed' ? model.get(taskId) : undefined), 30_000, 50);
        assert.ok(deniedByUser(view), view.statusMessage);
        const drawn = await readRows('sampling-denied', rows => rows.rows.some(row => row.label === `Denied by you: ${topic}`));
        const row = drawn.rows.find(row => row.label === `Denied by you: ${topic}`);
        assert.ok(row, JSON.stringify(drawn.rows));
        assert.doesNotMatch(`${row.label} ${row.description}`, /failed|sampling/i, 'not a failure, and no protocol word');
    });
});
