import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpTasksTestApi } from '../../extension/api';
import { listAllTasks, ownerClient, readyOverHttp, startInVsCode, waitFor } from './util';

/**
 * A prompt interrupted by the user (Escape, Quick Open) leaves its task waiting; Respond brings it
 * back. The Playwright UI driver interrupts prompts whose title names a ui-interrupt-* file once,
 * answers Delete when they come back, and clicks Respond when the suite asks through the status bar.
 */
describe('an interrupted prompt keeps its task waiting', () => {
    let api: McpTasksTestApi;
    let owner: Client;

    before(async () => {
        api = await readyOverHttp();
        // VS Code's own quick inputs (its MCP restart after a transport switch) would hide ours.
        await startInVsCode(60_000, api);
        owner = await ownerClient(api);
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
    });

    after(async () => {
        await owner?.close();
    });

    for (const [interruption, file, via] of [
        ['Escape', 'ui-interrupt-esc.txt', 'row'],
        ['Quick Open (Ctrl+P)', 'ui-interrupt-quickopen.txt', 'status'],
    ] as const) {
        it(`${interruption} leaves confirm_delete waiting; Respond from the ${via === 'row' ? 'row' : 'status bar'} reopens it`, async () => {
            const { model, pendingInputs } = api.testing;
            const taskId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'confirm_delete', args: { filename: file }, mode: 'task' })) as string;
            assert.ok(taskId);
            const result = api.testing.owner.result(taskId);

            // The driver interrupts the prompt; before this change that answered "cancel" at once.
            const prompt = await waitFor('the prompt to be hidden by the interruption', () => (pendingInputs.get(taskId)?.hidden ? pendingInputs.get(taskId) : undefined), 30_000, 50);
            const onServer = (await listAllTasks(owner)).find(task => task.taskId === taskId);
            assert.equal(onServer?.status, 'input_required', 'the server still waits for the answer');
            assert.equal(model.get(taskId)?.status, 'input_required');
            assert.equal(pendingInputs.get(taskId), prompt, 'the request is still unanswered');

            const request = vscode.window.setStatusBarMessage(`ui-respond ${file} via ${via}`);
            try {
                const content = (await result).content.map(part => (part.type === 'text' ? part.text : '')).join('');
                assert.equal(content, `Confirmed: would delete '${file}' (demo: nothing deleted)`);
            } finally {
                request.dispose();
            }
            await waitFor('the row to show completed', () => model.get(taskId)?.status === 'completed', 10_000, 50);
        });
    }
});
