import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../extension/api';
import { activateExtension, invoke, listAllTasks, ownerClient, processAlive, setTransport, startInVsCode, waitFor } from './util';

/** The path Copilot agent mode takes: VS Code's own MCP client, tools invoked through vscode.lm. */
for (const transport of ['http', 'stdio'] as const) {
    describe(`Copilot path over ${transport}`, () => {
        let api: McpTasksApi;
        let tools: Map<string, vscode.LanguageModelToolInformation>;

        before(async () => {
            api = await activateExtension();
            if (api.transport !== transport) {
                await setTransport(transport);
                await waitFor(`transport ${transport}`, () => api.transport === transport);
            }
            tools = await startInVsCode(60_000, api);
        });

        it('lists every tool with its title', () => {
            assert.deepEqual([...tools.keys()].sort(), ['confirm_delete', 'deploy', 'external_job', 'failing_job', 'greet', 'slow_compute', 'write_haiku']);
            assert.match(tools.get('greet')!.description, /greeting/i);
            // vscode.lm exposes descriptions and schemas, not titles (VS Code shows annotations.title in its pickers).
            assert.match(tools.get('slow_compute')!.description, /background task/i);
            assert.ok((tools.get('slow_compute')!.inputSchema as { properties: Record<string, unknown> }).properties.seconds);
        });

        it('the server process is up', async () => {
            const state = await waitFor('a server pid', () => api.serverState().pid);
            assert.ok(processAlive(state), `server ${state} is alive`);
        });

        it('greet answers through VS Code', async () => {
            assert.equal(await invoke(tools.get('greet')!, { name: 'VS Code' }), 'Hello, VS Code!');
        });

        it('slow_compute runs as a task on the server', async () => {
            const label = `it-${transport}-${Date.now()}`;
            // VS Code gives the model the structured content (when a tool has it) instead of the text.
            const reply = JSON.parse(await invoke(tools.get('slow_compute')!, { seconds: 2, label })) as { summary: string; result: number };
            assert.equal(reply.summary, `Computation "${label}" completed after 2 seconds. Result: 42.`);
            assert.equal(reply.result, 42);
            const owner = await ownerClient(api);
            try {
                const tasks = await listAllTasks(owner);
                const mine = tasks.find(t => JSON.stringify(t._meta ?? {}).includes(label));
                assert.ok(mine, `a task for ${label} exists on the server`);
                assert.equal(mine.status, 'completed');
            } finally {
                await owner.close();
            }
        });

        it('failing_job fails with the failure text', async () => {
            await assert.rejects(invoke(tools.get('failing_job')!, {}), /Job failed/);
        });
    });
}
