import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { isTerminal } from '../../extension/tasks/taskView';
import { askUi, readyWithTasksView, startSlowCompute, waitFor } from './util';

interface QuickInputReport {
    quickInput?: { title: string; placeholder: string; choices: { label: string; description: string }[] };
}
interface NotificationReport {
    message: string;
    source: string;
    buttons: string[];
}

/** Needs the Playwright UI driver: clicks in the Tasks view's title bar, as a user does. */
describe("the Tasks view's title bar", () => {
    let api: McpTasksTestApi;

    before(async () => (api = await readyWithTasksView()));

    it('Run Tool… with a row selected opens the tool picker (VS Code passes the focused row to title-bar commands)', async () => {
        const { model, treeView } = api.testing;
        const taskId = await startSlowCompute(0.5, 'selected-row');
        const view = await waitFor('the task to complete', () => (model.get(taskId)?.status === 'completed' ? model.get(taskId) : undefined), 10_000, 50);
        await treeView.reveal(view, { select: true, focus: true });
        await waitFor('the row selected', () => (treeView.selection.some(row => 'taskId' in row && row.taskId === taskId) ? true : undefined));
        // Only what this click brings: earlier suites leave notifications in the center.
        await vscode.commands.executeCommand('notifications.clearAll');

        const report = await askUi<QuickInputReport>('ui-title-action Run Tool :: run-tool-row-selected', 'title-action-run-tool-row-selected.json');
        const notifications = await askUi<NotificationReport[]>('ui-notifications after-run-tool', 'notifications-after-run-tool.json');
        assert.deepEqual(
            notifications.filter(note => /Run Tool|\{\d\}/.test(note.message)).map(note => note.message),
            [],
            'no error about the row, no unfilled placeholder',
        );
        assert.equal(report.quickInput?.title, 'MCP Tasks: Run Tool', 'the tool picker opened');
        assert.ok(report.quickInput.choices.some(choice => /slow_compute/.test(choice.description)), JSON.stringify(report.quickInput.choices));
    });

    it("Run Tool… lists the user's own commands first, each described on one line", async () => {
        const commands = vscode.workspace.getConfiguration('mcpTasks');
        await commands.update('commands', [{ name: 'user_first', description: 'Prints a line.\nDeclared in user settings.', command: ['node', '-e', "console.log('hi')"] }], vscode.ConfigurationTarget.Global);
        try {
            await waitFor('the command served', async () => ((await api.testing.owner.listTools()).some(tool => tool.name === 'user_first') ? true : undefined), 30_000, 200);
            const report = await askUi<QuickInputReport>('ui-title-action Run Tool :: run-tool-user-first', 'title-action-run-tool-user-first.json');
            const choices = report.quickInput?.choices ?? [];
            assert.match(choices[0]?.description ?? '', /^user_first/, `listed first: ${JSON.stringify(choices.map(choice => choice.description))}`);
            assert.ok(choices.every(choice => !/⏎/.test(JSON.stringify(choice))), 'no line break shows as ⏎');
        } finally {
            await commands.update('commands', undefined, vscode.ConfigurationTarget.Global);
        }
    });

    it('keeps its buttons in place when finished tasks come and go (Clear Finished greys out, it does not vanish)', async () => {
        const { model } = api.testing;
        type Button = { name: string; left: number; enabled: boolean };
        const clear = (buttons: Button[]) => buttons.find(button => /^Clear Finished/.test(button.name));
        /**
         * The title bar as drawn, read again until Clear Finished shows `enabled`: the title's buttons follow the
         * model through a context key, a moment later on a loaded machine. The last read either way, for the assertions.
         */
        const drawn = async (tag: string, enabled: boolean): Promise<Button[]> => {
            let attempt = 0;
            let read: Button[] = [];
            await waitFor(`Clear Finished drawn ${enabled ? 'enabled' : 'greyed out'}`, async () => {
                const name = attempt === 0 ? tag : `${tag}-${attempt}`;
                attempt++;
                read = await askUi<Button[]>(`ui-title-buttons ${name}`, `title-buttons-${name}.json`);
                return clear(read)?.enabled === enabled ? true : undefined;
            }, 30_000).catch(() => undefined);
            return read;
        };
        await vscode.commands.executeCommand('mcpTasks.clearFinished');
        await waitFor('no finished task', () => (model.all().some(view => view.lost || isTerminal(view.status)) ? undefined : true));
        const before = await drawn('no-finished', false);
        const taskId = await startSlowCompute(0.2, 'title-bar');
        await waitFor('the task to complete', () => (model.get(taskId)?.status === 'completed' ? true : undefined), 30_000, 50);
        const after = await drawn('one-finished', true);
        const place = (buttons: Button[]) => buttons.map(({ name, left }) => ({ name, left }));
        assert.deepEqual(place(after), place(before), 'the same buttons at the same places');
        assert.equal(clear(before)?.enabled, false, JSON.stringify(before));
        assert.equal(clear(after)?.enabled, true, JSON.stringify(after));
        assert.ok(before.some(button => /^Refresh/.test(button.name)), 'Refresh is there too');
    });
});
