import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateWithHooks, askUi, invoke, startInVsCode, uiArtifact, useTransport, waitFor } from './util';

/** Needs the Playwright UI driver of the code-server host (test/integration/uiDriver.mjs). */
describe('sidebar UI (Playwright drives the real workbench)', () => {
    it('a running task is listed and its inline Cancel button cancels it', async () => {
        const since = Date.now();
        const api = await activateWithHooks();
        await useTransport(api, 'http');
        const tools = await startInVsCode();
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
        const call = invoke(tools.get('slow_compute')!, { seconds: 60, label: 'ui-cancel' }).catch((err: Error) => err.message);
        // The UI driver finds the row, takes screenshots, and clicks its inline Cancel action.
        const view = await waitFor('the task cancelled by a click', () => api.testing.model.all().find(v => v.args.label === 'ui-cancel' && v.status === 'cancelled'), 60_000, 100);
        assert.equal(view.statusMessage, 'Cancelled from the MCP Tasks sidebar');
        assert.ok(typeof (await call) === 'string', 'the Copilot call ended');
        // The driver photographs the finished row before the suite moves on.
        await uiArtifact('tree-finished.png', since, true);
    });

    it('the walkthrough page shows its whole description (the page clips it at three lines)', async () => {
        await vscode.commands.executeCommand('workbench.action.openWalkthrough', 'mcp-tasks.mcp-tasks#gettingStarted', false);
        const drawn = await askUi<{ text: string; clipped: boolean; width: number }>('ui-walkthrough getting-started', 'walkthrough-getting-started.json');
        assert.match(drawn.text, /MCP tools/, JSON.stringify(drawn));
        assert.equal(drawn.clipped, false, `the description is cut: ${JSON.stringify(drawn)}`);
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    });

    it("the Welcome page's Walkthroughs list shows the walkthrough's whole title (beside its New badge)", async () => {
        await vscode.commands.executeCommand('workbench.action.openWalkthrough');
        const entries = await askUi<{ title: string; clipped: boolean }[]>('ui-welcome-walkthroughs', 'welcome-walkthroughs.json');
        const ours = entries.find(entry => /MCP Tasks/.test(entry.title));
        assert.ok(ours, JSON.stringify(entries));
        assert.equal(ours.clipped, false, `the title is cut: ${JSON.stringify(ours)}`);
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    });
});
