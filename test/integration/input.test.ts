import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpTasksTestApi } from '../../extension/api';
import { readRows } from './drawnRows';
import { askUi, otherClient, readyOverHttp, startInVsCode, uiArtifact, waitFor } from './util';

/** Prompts are answered by the Playwright UI driver, which acts on the file names in their titles. */
describe('elicitation and sampling answered in VS Code', () => {
    let api: McpTasksTestApi;

    before(async () => {
        api = await readyOverHttp();
        // Let VS Code finish restarting its MCP connection after a transport switch first: its own
        // quick inputs would hide (and so cancel) ours.
        await startInVsCode(60_000, api);
        await vscode.workspace.getConfiguration('mcpTasks').update('sampling.model', 'fake-haiku', vscode.ConfigurationTarget.Global);
    });

    async function runTask(name: string, args: Record<string, unknown>): Promise<string> {
        const taskId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name, args, mode: 'task' })) as string;
        assert.ok(taskId);
        const result = await api.testing.owner.result(taskId);
        return result.content.map(part => (part.type === 'text' ? part.text : '')).join('');
    }

    it('confirm_delete from Run Tool: the prompt opens on Keep, and the user picks Delete in the real input', async () => {
        const since = Date.now();
        assert.equal(await runTask('confirm_delete', { filename: 'ui-yes.txt' }), "Confirmed: would delete 'ui-yes.txt' (demo: nothing deleted)");
        // The prompt as the driver saw it: the question in the title, the hint in the placeholder.
        const path = await uiArtifact('prompt.json', since);
        if (path) {
            type Row = { label: string; description: string };
            const seen = JSON.parse(readFileSync(path, 'utf8')) as { title: string; placeholder: string; choices: Row[]; active?: Row };
            assert.match(seen.title, /Delete 'ui-yes\.txt'\? This cannot be undone\.$/, 'the question, without "(step 1 of 1)"');
            assert.equal(seen.placeholder, "Delete the file: Keep leaves 'ui-yes.txt' as it is; Delete deletes it");
            const choices = Object.fromEntries(seen.choices.map(choice => [choice.label, choice.description]));
            // Each choice in words, without its raw value (`keep`, `delete`) beside it.
            assert.ok(!choices['Keep the file'], `Keep shows no raw value: ${choices['Keep the file']}`);
            assert.ok(!choices["Delete 'ui-yes.txt'"], `Delete shows no raw value: ${choices["Delete 'ui-yes.txt'"]}`);
            assert.match(choices.Decline ?? '', /refused the request/);
            assert.equal(seen.active?.label, 'Keep the file', 'the prompt opens on the safe choice, so Enter keeps the file');
        }
    });

    it("confirm_delete: the row says which the user chose, 'Kept the file' or 'Declined'", async () => {
        const { model } = api.testing;
        const outcomes: Record<string, string> = {};
        for (const filename of ['ui-keep.txt', 'ui-decline.txt']) {
            assert.equal(await runTask('confirm_delete', { filename }), 'Deletion cancelled');
            const view = await waitFor(`the ${filename} task`, () => model.all().find(v => v.toolName === 'confirm_delete' && v.keyArgument === filename && v.status === 'completed'), 10_000, 50);
            outcomes[filename] = view.statusMessage ?? '';
        }
        assert.deepEqual(outcomes, { 'ui-keep.txt': 'Kept the file', 'ui-decline.txt': 'Declined' });
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
        const drawn = await readRows('keep-decline', view => view.rows.some(row => /Kept the file/.test(row.description)) && view.rows.some(row => /Declined/.test(row.description)));
        assert.ok(drawn.rows.some(row => row.label === 'Completed: ui-keep.txt' && /^Kept the file/.test(row.visibleDescription)), JSON.stringify(drawn.rows));
        await askUi('ui-shot rows-kept-and-declined', 'rows-kept-and-declined.png');
    });

    it('write_haiku: sampling is answered by a VS Code language model', async () => {
        const text = await runTask('write_haiku', { topic: 'integration' });
        assert.equal(text, 'Haiku about integration:\nQuiet integration waits\nfixed words from a test model\nthe task completes now');
    });

    it('a raw MCP client without elicitation gets its confirm_delete answered in VS Code', async () => {
        const client = await otherClient(api, 'raw-cli', { capabilities: {} });
        try {
            const { task } = await client.request({ method: 'tools/call', params: { name: 'confirm_delete', arguments: { filename: 'ui-raw.txt' }, task: {} } }, CreateTaskResultSchema);
            const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
            assert.equal(result.content.map(p => (p.type === 'text' ? p.text : '')).join(''), "Confirmed: would delete 'ui-raw.txt' (demo: nothing deleted)");
            // The sidebar showed the raw client's task too.
            assert.equal(api.testing.model.get(task.taskId)?.clientName, 'raw-cli');
        } finally {
            await client.close();
        }
    });

    it('an open prompt closes when its task is cancelled', async () => {
        const { model, pendingInputs } = api.testing;
        const taskId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'confirm_delete', args: { filename: 'ui-wait.txt' }, mode: 'task' })) as string;
        const view = await waitFor('the task to need input', () => (model.get(taskId)?.status === 'input_required' ? model.get(taskId) : undefined), 10_000, 50);
        await waitFor('the prompt to be open', () => pendingInputs.get(taskId), 10_000, 50);
        await vscode.commands.executeCommand('mcpTasks.cancelTask', view);
        await waitFor('the prompt to close', () => pendingInputs.get(taskId) === undefined, 10_000, 50);
        assert.equal(view.status, 'cancelled');
    });
});
