import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { activateWithHooks, invoke, listAllTasks, ownerClient, processAlive, readyOverHttp, startInVsCode, TOOL_NAMES, uiArtifact, useTransport, waitFor } from './util';
import { readRows, rowOf } from './drawnRows';

/** The path Copilot agent mode takes: VS Code's own MCP client, tools invoked through vscode.lm. */
for (const transport of ['http', 'stdio'] as const) {
    describe(`Copilot path over ${transport}`, () => {
        let api: McpTasksTestApi;
        let tools: Map<string, vscode.LanguageModelToolInformation>;

        before(async () => {
            api = await activateWithHooks();
            if (api.transport !== transport) {
                await useTransport(api, transport);
            }
            tools = await startInVsCode(60_000, api);
        });

        it('lists every tool with its title', () => {
            assert.deepEqual([...tools.keys()].sort(), [...TOOL_NAMES].sort());
            assert.match(tools.get('greet')!.description, /greeting/i);
            // vscode.lm exposes descriptions and schemas, not titles: the suite below reads them in VS Code's UI.
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

/** Needs the Playwright UI driver of the code-server host (test/integration/uiDriver.mjs). */
describe('tool titles (Playwright reads the real workbench)', () => {
    it('tools/list carries title and annotations.title, and VS Code shows those titles', async () => {
        const api = await activateWithHooks();
        await startInVsCode(60_000, api);
        const owner = await ownerClient(api);
        const listed = await owner.listTools().finally(() => owner.close());
        assert.deepEqual(listed.tools.map(t => t.name).sort(), [...TOOL_NAMES].sort());
        for (const tool of listed.tools) {
            assert.ok(tool.title, `${tool.name} has a title`);
            assert.equal(tool.annotations?.title, tool.title, `${tool.name} repeats its title in annotations`);
        }
        // VS Code names an MCP tool by annotations.title || title || name. Its "Manage Tool Approval"
        // tree lists the tools that can ask for approval: all but read-only ones without openWorldHint.
        const approvable = listed.tools.filter(t => !t.annotations?.readOnlyHint || t.annotations.openWorldHint);
        assert.ok(approvable.length >= 3, 'enough tools to see in the approvals tree');
        // The driver expands our server in the tree and writes the rows it reads to tool-approvals.json.
        const since = Date.now();
        await vscode.commands.executeCommand('workbench.action.chat.editToolApproval');
        const report = (await uiArtifact('tool-approvals.json', since, true))!;
        const rows = await waitFor(
            'the tool titles in the Manage Tool Approval tree',
            () => {
                const seen = JSON.parse(readFileSync(report, 'utf8')) as string[];
                return approvable.every(t => seen.includes(t.title!)) ? seen : undefined;
            },
            45_000,
            100,
        );
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        for (const tool of approvable) {
            assert.ok(rows.includes(tool.title!), `"${tool.title}" is shown`);
            assert.ok(!rows.includes(tool.name), `${tool.name} is shown by its title, not its name`);
        }
    });
});

/** What the UI driver read in the Notifications Center after it clicked a row's Respond (uiDriver.mjs copilotRespondOnRequest). */
interface CenterReport {
    centerBeforeClick: boolean;
    centerAfterClick: boolean;
    message: string;
    source: string;
    buttons: string[];
    all: string[];
    /** VS Code's pick after its Respond: the rows and the active one, before anything is chosen. */
    pick?: { title: string; choices: { label: string; description: string }[]; active?: { label: string; description: string } };
}

/**
 * Needs the Playwright UI driver. On the Copilot path VS Code's own MCP client asks the question:
 * outside a chat as a notification whose toast hides in the Notifications Center after a few
 * seconds (the smoke-test host shows no toasts at all: the question is only in the center).
 * The sidebar's Respond must lead there, and the finished row must say how it was answered.
 */
describe("Respond on a question VS Code's own MCP client asks (Copilot path)", () => {
    let api: McpTasksTestApi;
    let tools: Map<string, vscode.LanguageModelToolInformation>;

    before(async () => {
        api = await readyOverHttp();
        tools = await startInVsCode(60_000, api);
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
    });

    after(() => vscode.commands.executeCommand('notifications.hideList'));

    const runs = [
        { file: 'cp-yes.txt', answer: 'confirm', outcome: 'Confirmed', result: "Confirmed: would delete 'cp-yes.txt' (demo: nothing deleted)" },
        { file: 'cp-no.txt', answer: 'keep', outcome: 'Kept the file', result: 'Deletion cancelled' },
    ];
    for (const { file, answer, outcome, result } of runs) {
        it(`the row's Respond opens VS Code's question in the Notifications Center; answered there (${answer}), the row says ${outcome}`, async () => {
            const { model } = api.testing;
            const call = invoke(tools.get('confirm_delete')!, { filename: file });
            call.catch(() => undefined);
            const view = await waitFor(`${file} to need input`, () => model.all().find(v => v.keyArgument === file && v.status === 'input_required'), 60_000, 50);
            assert.doesNotMatch(view.clientName ?? '', /MCP Tasks for VS Code/, "VS Code's own client started it, not this extension");
            assert.equal(view.chat, undefined, 'no chat: VS Code asks in a notification');
            // Nothing answered yet, and the question out of sight, as once its toast has hidden.
            await vscode.commands.executeCommand('notifications.hideList');

            const since = Date.now();
            const request = vscode.window.setStatusBarMessage(`ui-copilot-respond ${file} ${answer}`);
            let center: CenterReport;
            try {
                center = JSON.parse(readFileSync((await uiArtifact(`copilot-respond-${file}.json`, since, true))!, 'utf8')) as CenterReport;
                assert.equal(await call, result, 'the answer given in VS Code reached the tool');
            } finally {
                request.dispose();
            }
            assert.equal(center.centerBeforeClick, false, 'the Notifications Center was closed before Respond');
            assert.equal(center.centerAfterClick, true, 'Respond opened it');
            assert.equal(center.message, `Delete '${file}'? This cannot be undone.`, "it shows VS Code's question");
            assert.match(center.source, /MCP Server \(MCP Tasks/);
            assert.ok(center.buttons.includes('Respond'), `VS Code's own Respond is there: ${JSON.stringify(center.buttons)}`);
            assert.ok(!center.all.some(message => /waiting for (its client|an answer in the app)/.test(message)), `no message of ours: ${JSON.stringify(center.all)}`);
            // VS Code's pick labels each choice with its value and opens on the default: Keep, so Enter deletes nothing.
            assert.deepEqual(
                center.pick?.choices.slice(0, 2),
                [
                    { label: 'keep', description: 'Keep the file' },
                    { label: 'delete', description: `Delete '${file}'` },
                ],
                JSON.stringify(center.pick),
            );
            assert.deepEqual(center.pick?.active, { label: 'keep', description: 'Keep the file' }, "VS Code's pick opens on the safe choice");

            await waitFor(`the outcome of ${file}`, () => (model.get(view.taskId)?.status === 'completed' && model.get(view.taskId)?.statusMessage === outcome ? true : undefined), 10_000, 50);
            const row = rowOf(await readRows(`copilot-${answer}`, drawn => drawn.rows.some(r => r.label === `Completed: ${file}` && r.description.startsWith(outcome))), `Completed: ${file}`);
            assert.match(row.visibleDescription, new RegExp(`^${outcome} · `), `the row shows the outcome at the default width: ${row.description}`);
            await vscode.commands.executeCommand('notifications.hideList');
        });
    }
});
