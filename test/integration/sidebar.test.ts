import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { OWN_CLIENT_NAME } from '../../extension/owner/ownerConnection';
import { clientKind, type TaskView } from '../../extension/tasks/taskView';
import { activateWithHooks, askUi, invoke, resultPreviewTab, startInVsCode, startSlowCompute, useTransport, waitFor } from './util';

type Sidebar = McpTasksTestApi['testing'];

function findTask(sidebar: Sidebar, label: string): TaskView | undefined {
    return sidebar.model.all().find(view => view.args.label === label);
}

for (const transport of ['http', 'stdio'] as const) {
    describe(`sidebar over ${transport}`, () => {
        let api: McpTasksTestApi;
        let sidebar: Sidebar;
        let tools: Map<string, vscode.LanguageModelToolInformation>;

        before(async () => {
            api = await activateWithHooks();
            sidebar = api.testing;
            await useTransport(api, transport);
            tools = await startInVsCode(60_000, api);
            await waitFor('the owner connection', () => sidebar.owner.connected, 30_000);
            await vscode.commands.executeCommand('mcpTasks.tasks.focus');
        });

        it("shows Copilot's task while it runs, with progress, and Cancel stops the server work", async () => {
            // Short enough to show whole as a row label (ROW_LABEL_MAX).
            const label = `tree-${transport}-${Date.now() % 100_000}`;
            const call = invoke(tools.get('slow_compute')!, { seconds: 30, label });
            let callEnded = false;
            const settled = call.then(
                () => 'resolved',
                (err: Error) => `rejected: ${err.message}`,
            );
            void settled.then(() => (callEnded = true));
            const view = await waitFor('the task in the tree', () => findTask(sidebar, label), 5000, 20);
            // Pushed to the tree while the call still runs (how fast is for npm run bench:extension, not a test).
            assert.equal(callEnded, false, 'the task appeared only after the call had ended');
            assert.equal(view.status, 'working');
            assert.ok(sidebar.tree.getChildren().includes(view), 'listed at the top level of the tree');
            assert.equal(clientKind(view.clientName, OWN_CLIENT_NAME), 'copilot', `started by VS Code's MCP client (${view.clientName})`);
            // Named by its key argument; the tool ends the description.
            assert.equal(String(sidebar.tree.getTreeItem(view).label), `Running: ${label}`);
            await waitFor('progress', () => (view.progress?.progress ?? 0) > 0, 5000, 50);
            assert.match(String(sidebar.tree.getTreeItem(view).description), /^\d+% · (<1m|\d+m) · slow_compute$/);
            assert.equal(sidebar.tree.getTreeItem(view).contextValue, 'task.running');

            await vscode.commands.executeCommand('mcpTasks.cancelTask', view);
            await waitFor('cancelled', () => view.status === 'cancelled', 5000, 20);
            assert.equal(view.statusMessage, 'Cancelled from the MCP Tasks sidebar');
            const progressAtCancel = view.progress?.progress;
            // VS Code's call ends with the task; no progress arrives for it afterwards.
            assert.match(await settled, /rejected/);
            // A marker outlasting a progress tick (1 s), whose end comes over the same connection:
            // a tick the cancelled task still sent would have reached the model before it.
            const marker = await startSlowCompute(1.5, `${label}-marker`);
            await waitFor('the marker task to complete', () => sidebar.model.get(marker)?.status === 'completed', 10_000, 20);
            assert.equal(view.progress?.progress, progressAtCancel);
            const item = sidebar.tree.getTreeItem(view);
            assert.match(String(item.label), /^Cancelled: /);
            assert.equal(item.contextValue, 'task.done');
            // Its result says the user cancelled it, not that the tool failed or "the client" cancelled.
            const uri = (await vscode.commands.executeCommand('mcpTasks.showResult', view)) as vscode.Uri;
            const text = (await vscode.workspace.openTextDocument(uri)).getText();
            assert.match(text, /\*\*cancelled\*\* — Cancelled by you$/m);
            assert.doesNotMatch(text, /Cancelled by the client|Cancelled from the MCP Tasks sidebar|reported an error/);
            await waitFor('the rendered result', () => resultPreviewTab(`slow_compute: ${label}`));
            const drawn = await askUi<{ text: string }>(`ui-result cancelled-by-you-${transport}`, `result-cancelled-by-you-${transport}.json`);
            assert.match(drawn.text, /cancelled — Cancelled by you/);
            await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
        });

        it('Run Tool starts a task; the status bar shows it; Show Result opens the text', async () => {
            const label = `runtool-${transport}`;
            const taskId = await startSlowCompute(3, label);
            assert.ok(taskId, 'Run Tool returned the task id');
            await waitFor('progress in the status bar', () => /\$\(sync~spin\) \d+ tasks? · slow_compute \d+%/.test(sidebar.statusBar.text), 5000, 50);
            const view = sidebar.model.get(taskId)!;
            await waitFor('completion', () => view.status === 'completed', 10_000, 50);
            const uri = (await vscode.commands.executeCommand('mcpTasks.showResult', view)) as vscode.Uri;
            const text = (await vscode.workspace.openTextDocument(uri)).getText();
            assert.match(text, new RegExp(`Computation "${label}" completed after 3 seconds\\. Result: 42\\.`));
            assert.match(text, /"result": 42/);
            // The tool's text is output: in a preformatted block, its lines kept.
            assert.match(text, new RegExp(`\`\`\`text\\nComputation "${label}" completed`));
            await waitFor('the rendered result', () => resultPreviewTab(`slow_compute: ${label}`));
            // As drawn: the tool's text in a preformatted block.
            const drawn = await askUi<{ pre: string[] }>(`ui-result run-tool-${transport}`, `result-run-tool-${transport}.json`);
            assert.ok(drawn.pre.some(block => block.startsWith(`Computation "${label}" completed`)), JSON.stringify(drawn.pre));
            await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
        });

        it('Clear Finished removes finished tasks and keeps running ones', async () => {
            const running = await startSlowCompute(20, `keep-${transport}`);
            await vscode.commands.executeCommand('mcpTasks.clearFinished');
            const left = sidebar.model.all();
            assert.ok(left.some(view => view.taskId === running));
            assert.ok(left.every(view => view.status === 'working' || view.status === 'input_required'));
            await vscode.commands.executeCommand('mcpTasks.cancelTask', sidebar.model.get(running));
        });
    });
}
