import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { activateWithHooks, endedWithItsServer, finishedAcrossServers, invoke, processAlive, setTransport, startInVsCode, startSlowCompute, useTransport, waitFor } from './util';

describe('server lifecycle (http)', () => {
    let api: McpTasksTestApi;

    before(async () => {
        api = await activateWithHooks();
        await useTransport(api, 'http');
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
        const taskId = await startSlowCompute(60, 'doomed');
        const view = await waitFor('the task', () => sidebar.model.get(taskId));
        const { pid } = await api.ensureServer();
        process.kill(pid!, 'SIGKILL');
        const ended = await waitFor('the task marked lost, or failed by the server that took it over', () => {
            const now = sidebar.model.get(taskId) ?? view;
            return endedWithItsServer(now) ? now : undefined;
        }, 15_000);
        if (ended.lost) {
            assert.match(String(sidebar.tree.getTreeItem(ended).label), /^Lost: /);
            assert.equal(sidebar.tree.getTreeItem(ended).contextValue, 'task.lost');
        } else {
            assert.match(String(sidebar.tree.getTreeItem(ended).label), /^Failed: /);
        }
        await waitFor('a new server', () => {
            const now = api.serverState().pid;
            return now && now !== pid ? now : undefined;
        });
        await waitFor('the owner connection again', () => sidebar.owner.connected, 30_000);
        assert.ok(!processAlive(pid!));
    });

    // VS Code's extension-test host refuses modal dialogs (DialogService.skipDialogs): there the
    // question reads as dismissed, which is Escape's answer for a user, "do not stop the work".
    it('Restart Server does not stop a running task unless the user says so; finished and stopped tasks stay listed, marked', async () => {
        const { model, tree } = api.testing;
        await waitFor('the owner connection', () => api.testing.owner.connected, 30_000);
        const done = await startSlowCompute(0.5, 'before-restart');
        await waitFor('the first task to complete', () => model.get(done)?.status === 'completed', 10_000, 50);
        const running = await startSlowCompute(60, 'keep-running');
        const { pid } = await api.ensureServer();

        await vscode.commands.executeCommand('mcpTasks.restartServer');
        assert.equal(api.serverState().pid, pid, 'the server was not restarted');
        assert.equal(model.get(running)?.status, 'working');

        // Nothing runs: Restart goes ahead without asking, and the history stays, marked.
        await vscode.commands.executeCommand('mcpTasks.cancelTask', model.get(running));
        await vscode.commands.executeCommand('mcpTasks.restartServer');
        assert.notEqual(api.serverState().pid, pid);
        await waitFor('the owner connection to the new server', () => api.testing.owner.connected, 30_000);
        await vscode.commands.executeCommand('mcpTasks.refresh');
        for (const taskId of [done, running]) {
            const view = model.get(taskId);
            assert.ok(finishedAcrossServers(view), `${taskId} is still listed`);
            if (view!.lost) {
                // A memory store: kept here, marked.
                assert.match(String(tree.getTreeItem(view!).label), /^(Completed|Cancelled): /);
                assert.match(String(tree.getTreeItem(view!).description), /^on a previous server/);
                assert.equal(tree.getTreeItem(view!).contextValue, 'task.done.lost', 'Show Result reads the copy kept here, or says the result went with its server');
            } else {
                // The durable store (the default): the new server took it over, its result readable there.
                assert.match(String(tree.getTreeItem(view!).label), /^(Completed|Cancelled): /);
                assert.match(tree.getTreeItem(view!).contextValue ?? '', /^task\.done/);
            }
        }
    });

    it('Restart Server replaces the process and leaves no old one behind', async () => {
        const { pid } = await api.ensureServer();
        await vscode.commands.executeCommand('mcpTasks.restartServer');
        const next = api.serverState().pid;
        assert.ok(next && next !== pid);
        await waitFor('the old server to exit', () => !processAlive(pid!), 5000);
    });

    it('a transport switch while a task runs waits for it, unless the user says Restart Now', async () => {
        const { model } = api.testing;
        const { pid } = await api.ensureServer();
        await waitFor('the owner connection', () => api.testing.owner.connected, 30_000);
        const running = await startSlowCompute(60, 'keep-switch');
        await setTransport('stdio');
        await waitFor('the switch to wait for the task', () => api.testing.settingsWaiting() || undefined, 10_000, 20);
        assert.ok(processAlive(pid!), 'the HTTP server still runs the task');
        assert.equal(api.transport, 'http');
        assert.equal(model.get(running)?.status, 'working');
        // Once the task ends, the switch goes ahead.
        await vscode.commands.executeCommand('mcpTasks.cancelTask', model.get(running));
        await waitFor('the HTTP server to exit after the task', () => !processAlive(pid!), 15_000);
        await waitFor('transport stdio', () => api.transport === 'stdio');
        await useTransport(api, 'http');
    });

    it('switching transport stops the HTTP child', async () => {
        const { pid } = await api.ensureServer();
        await setTransport('stdio');
        await waitFor('the HTTP server to exit', () => !processAlive(pid!), 10_000);
        await setTransport('http');
    });
});
