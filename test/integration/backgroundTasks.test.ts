import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { activateWithHooks, invoke, listAllTasks, ownerClient, startInVsCode, waitFor } from './util';

interface Summary {
    task_id: string;
    tool: string;
    status: string;
    status_message?: string;
    result?: { structuredContent?: { result?: number; summary?: string } };
}

/** Copilot's way to keep the chat going: the task tools, invoked through vscode.lm like any tool. */
describe('background tasks through the task tools (Copilot path)', () => {
    let api: McpTasksTestApi;
    let tools: Map<string, vscode.LanguageModelToolInformation>;

    before(async () => {
        api = await activateWithHooks();
        tools = await startInVsCode(60_000, api);
    });

    async function serverTask(taskId: string) {
        const owner = await ownerClient(api);
        try {
            return (await listAllTasks(owner)).find(t => t.taskId === taskId);
        } finally {
            await owner.close();
        }
    }

    it('start_slow_compute returns a task id while the task works; get_task returns the result; the end offers Continue in Chat', async function () {
        this.timeout(120_000);
        const label = `bg-${Date.now()}`;
        const started = JSON.parse(await invoke(tools.get('start_slow_compute')!, { seconds: 30, label })) as Summary;
        assert.equal(started.tool, 'slow_compute');
        const taskId = started.task_id;
        assert.equal((await serverTask(taskId))?.status, 'working', 'the call returned while the server task still works');
        const inSidebar = await waitFor('the task in the sidebar', () => api.testing.model.get(taskId), 10_000);
        assert.equal(inSidebar.toolName, 'slow_compute');
        assert.equal(inSidebar.background, true);

        let ended: Summary | undefined;
        for (let i = 0; i < 6 && !ended; i++) {
            const reply = JSON.parse(await invoke(tools.get('get_task')!, { task_id: taskId, wait_seconds: 20 })) as Summary;
            ended = reply.status === 'completed' ? reply : undefined;
        }
        assert.ok(ended, 'get_task reported the task completed');
        assert.equal(ended.result?.structuredContent?.result, 42);
        assert.equal(ended.result?.structuredContent?.summary, `Computation "${label}" completed after 30 seconds. Result: 42.`);

        const offer = await waitFor('the completion notification', () => api.testing.completions.offered.find(o => o.taskId === taskId), 10_000);
        assert.deepEqual(offer.actions, ['Continue in Chat', 'Show Result']);
        const before = api.testing.executedCommands.length;
        await api.testing.completions.continueInChat(api.testing.model.get(taskId)!);
        const [opened] = api.testing.executedCommands.slice(before);
        assert.equal(opened?.command, 'workbench.action.chat.open');
        const options = opened.args[0] as { query: string; isPartialQuery: boolean };
        assert.equal(options.isPartialQuery, true);
        assert.match(options.query, new RegExp(`background task ${taskId} \\(slow_compute: ${label}\\) completed`));
        assert.match(options.query, /get_task/);
    });

    it('cancelling the token of a task-augmented call leads the server to cancel the task once VS Code stops polling', async function () {
        this.timeout(120_000);
        const label = `abandoned-${Date.now()}`;
        const tokens = new vscode.CancellationTokenSource();
        const call = invoke(tools.get('slow_compute')!, { seconds: 600, label }, tokens.token).then(
            () => 'returned',
            (err: unknown) => String(err),
        );
        const owner = await ownerClient(api);
        try {
            const task = await waitFor('the task on the server', async () => (await listAllTasks(owner)).find(t => JSON.stringify(t._meta ?? {}).includes(label) && t.status === 'working'), 20_000);
            tokens.cancel();
            await call;
            // The extension starts the server with --abandon-after 30s: VS Code's polls stop, the server notices.
            const cancelled = await waitFor(
                'the server to cancel the abandoned task',
                async () => (await listAllTasks(owner)).find(t => t.taskId === task.taskId && t.status === 'cancelled'),
                80_000,
                1000,
            );
            assert.match(String(cancelled.statusMessage ?? ''), /stopped following it/);
        } finally {
            await owner.close();
        }
    });
});
