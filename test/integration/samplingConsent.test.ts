import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
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
        assert.deepEqual(found.buttons, ['Allow', 'Allow always', 'Deny']);

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
});
