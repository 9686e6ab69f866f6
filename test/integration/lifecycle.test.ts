import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { activateWithHooks, invoke, processAlive, setTransport, startInVsCode, waitFor } from './util';

describe('server lifecycle (http)', () => {
    let api: McpTasksTestApi;

    before(async () => {
        api = await activateWithHooks();
        await setTransport('http');
        await waitFor('transport http', () => api.transport === 'http');
        await startInVsCode();
    });

    it('restarts a killed server and the tools work again', async () => {
        const { pid } = await api.ensureServer();
        assert.ok(pid);
        process.kill(pid, 'SIGKILL');
        const next = await waitFor('a new server pid', () => {
            const now = api.serverState().pid;
            return now && now !== pid ? now : undefined;
        });
        assert.ok(processAlive(next));
        assert.ok(!processAlive(pid), 'the killed process is gone');
        const tools = await startInVsCode();
        const text = await waitFor('greet to answer again', () => invoke(tools.get('greet')!, { name: 'again' }).catch(() => undefined), 30_000, 1000);
        assert.equal(text, 'Hello, again!');
    });

    it('tasks of a killed server show as lost in the tree; the restarted server is watched again', async () => {
        const sidebar = api.testing;
        await waitFor('the owner connection', () => sidebar.owner.connected, 30_000);
        const taskId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'slow_compute', args: { seconds: 60, label: 'doomed' }, mode: 'task' })) as string;
        const view = await waitFor('the task', () => sidebar.model.get(taskId));
        const { pid } = await api.ensureServer();
        process.kill(pid!, 'SIGKILL');
        await waitFor('the task marked lost', () => view.lost === true, 15_000);
        assert.match(String(sidebar.tree.getTreeItem(view).description), /lost/);
        assert.equal(sidebar.tree.getTreeItem(view).contextValue, 'task.lost');
        await waitFor('a new server', () => {
            const now = api.serverState().pid;
            return now && now !== pid ? now : undefined;
        });
        await waitFor('the owner connection again', () => sidebar.owner.connected, 30_000);
        assert.ok(!processAlive(pid!));
    });

    it('Restart Server replaces the process and leaves no old one behind', async () => {
        const { pid } = await api.ensureServer();
        await vscode.commands.executeCommand('mcpTasks.restartServer');
        const next = api.serverState().pid;
        assert.ok(next && next !== pid);
        await waitFor('the old server to exit', () => !processAlive(pid!), 5000);
    });

    it('switching transport stops the HTTP child', async () => {
        const { pid } = await api.ensureServer();
        await setTransport('stdio');
        await waitFor('the HTTP server to exit', () => !processAlive(pid!), 10_000);
        await setTransport('http');
    });
});
