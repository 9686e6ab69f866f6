import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { grantTrustInEditor, readyOverHttp, waitFor } from './util';

// Workspace trust in a multi-root window: run.mjs opens test/integration/fixtures/untrusted-multiroot's
// .code-workspace file with trust on, so it opens in Restricted Mode. The workspace file declares a
// command in its settings and a task of its own, and exposes that task and the folder's tasks.json
// task; the folder declares a command in .vscode/mcp-tasks.json and another in its own settings.json,
// which VS Code does not apply in a multi-root window (the setting is window-scoped).

/** What waits for trust: the folder's file command, the workspace file's setting command, and the two exposed tasks. */
const WAITING = 4;
/** What trust then serves: the same four, and not the folder settings' command. */
const SERVED = ['mr_file_echo', 'mr_setting_echo', 'vscode_task_mr_build', 'vscode_task_mr_release'];

describe('an untrusted multi-root workspace', () => {
    let api: McpTasksTestApi;

    before(async () => (api = await readyOverHttp()));

    it("counts the workspace file's settings and its own tasks, and not a folder's settings.json", async () => {
        assert.equal(vscode.workspace.isTrusted, false);
        assert.ok(vscode.workspace.workspaceFile, 'opened through its .code-workspace file');
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
        assert.equal(api.testing.commandTools.waitingForTrust, WAITING);
        const notice = api.testing.tree.getChildren().find(row => !('taskId' in row));
        assert.ok(notice, 'the Restricted Mode row');
        assert.equal(api.testing.tree.getTreeItem(notice).label, `${WAITING} commands wait for trust`);
    });

    it('once trusted, serves exactly what it counted', async function () {
        this.timeout(240_000);
        await grantTrustInEditor();
        const { commandTools } = api.testing;
        // The exposed tasks come once VS Code's task system lists them.
        await waitFor('the trusted commands', () => (SERVED.every(name => commandTools.tools.has(name)) ? true : undefined), 60_000, 250);
        assert.deepEqual([...commandTools.tools.keys()].filter(name => name.startsWith('mr_') || name.startsWith('vscode_task_mr_')).sort(), SERVED);
        assert.equal(commandTools.waitingForTrust, 0);
    });
});
