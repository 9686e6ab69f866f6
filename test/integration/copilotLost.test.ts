import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { readyOverHttp, startInVsCode, toolNamed, waitFor } from './util';

/** How long the call may take to come back after the crash: the restart's backoff (1 s) and VS Code's reconnect, generously for a loaded machine. */
const RETURNS_WITHIN_MS = 60_000;

/**
 * Copilot's tool call whose task is lost with a crashed server: VS Code's MCP client waits on the
 * task, so the call must come back by itself, as an error a model can act on (which tool, what to do),
 * once the server is back; before, it never returned (the client polled the new server in vain).
 */
describe('a Copilot call whose task is lost with the server', () => {
    let api: McpTasksTestApi;

    before(async () => {
        api = await readyOverHttp();
        await startInVsCode(60_000, api);
    });

    after(async function () {
        this.timeout(120_000);
        // The next suites expect a running server with its tools listed in VS Code.
        await waitFor('the owner connection again', () => api?.testing.owner.connected || undefined, 60_000);
        await startInVsCode(60_000, api);
    });

    it('returns an error with words at once: the task was lost, call the tool again', async () => {
        const tool = toolNamed('slow_compute');
        assert.ok(tool, 'slow_compute is listed in VS Code');
        // What the model reads either way: a rejection's message, or the text of a result VS Code marks as an error.
        const call = vscode.lm.invokeTool(tool.name, { input: { seconds: 300, label: 'copilot-lost' }, toolInvocationToken: undefined }).then(
            result => `resolved: ${result.content.map(part => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join(' ')}`,
            (err: Error) => `rejected: ${err.message}`,
        );
        const view = await waitFor('the Copilot task running', () => api.testing.model.all().find(task => task.args.label === 'copilot-lost' && task.status === 'working'), 30_000, 50);
        const { pid } = api.serverState();
        assert.ok(pid);
        process.kill(pid, 'SIGKILL');

        let timer: NodeJS.Timeout | undefined;
        const outcome = await Promise.race([call, new Promise<string>(resolve => (timer = setTimeout(() => resolve('still waiting'), RETURNS_WITHIN_MS)))]);
        clearTimeout(timer);
        // The restarted server keeps tasks in the workspace's durable store, so it knows this one ended
        // with the old process and says so; on a store that forgot it (memory) the row is lost and the
        // server answers for the id the extension handed it (--lost-tasks). Either way, in words.
        const ended = await waitFor(
            'the row to say the task ended with the server',
            () => {
                const row = api.testing.model.get(view.taskId) ?? view;
                return row.lost || (row.status === 'failed' && /server restarted/i.test(row.statusMessage ?? '')) ? row : undefined;
            },
            30_000,
        );
        assert.ok(ended);
        assert.notEqual(outcome, 'still waiting', 'the call came back');
        assert.match(outcome, /slow_compute/, `it names the tool to call again: ${outcome}`);
        assert.match(outcome, /server stopped unexpectedly|server restarted/i, `it says what happened: ${outcome}`);
        assert.doesNotMatch(outcome, /Canceled|-32\d{3}|MCP error/, `in words, not a bare cancellation or a protocol code: ${outcome}`);
    });
});
