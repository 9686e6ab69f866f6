import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpTasksTestApi } from '../../extension/api';
import { readRows } from './drawnRows';
import { askUi, cleanUp, emptyTheView, finishedAndOpened, longRunning, otherClient, readyWithTasksView, resultPreviewTab, uiArtifact, waitFor } from './util';

interface KeysReport {
    focused: string;
    selected: string[];
    quickInput?: string;
    activeElement: string;
    activeRole: string;
    activePart: string;
    pressed: number;
}

/**
 * Needs the Playwright UI driver, which presses the keys: Enter and Delete act on the row the
 * keyboard is on (the focused one), as in VS Code's own trees, not on the row selected before; and a
 * question is answered only from the question itself, after the user has seen it.
 */
describe("the Tasks view's keys act on the focused row", () => {
    let api: McpTasksTestApi;

    before(async () => {
        api = await readyWithTasksView();
        // Earlier suites' terminals in the panel can hold the keyboard.
        await vscode.commands.executeCommand('workbench.action.closePanel');
    });

    /** Nothing running and no rows left. */
    async function emptied(): Promise<void> {
        const { model, owner } = api.testing;
        await Promise.all(model.running().map(view => owner.cancel(view.taskId).catch(() => undefined)));
        await waitFor('nothing running', () => (model.running().length === 0 ? true : undefined), 20_000, 100);
        await vscode.commands.executeCommand('mcpTasks.clearFinished');
        await waitFor('the view empty', () => (model.all().length === 0 ? true : undefined), 10_000, 50);
    }

    after(async () => {
        await cleanUp([['close the editors', () => vscode.commands.executeCommand('workbench.action.closeAllEditors')], ...emptyTheView(api, 'leave-rows')]);
    });

    it('keyboard only: Run Tool with its form, from an empty view, starts a task and the keyboard lands on its row', async () => {
        const { model } = api.testing;
        await emptied();
        // The Command Palette; the tool picker; the form's two steps (a number and a label); "Run as task", the
        // first choice. Run Tool focuses the Tasks view, whose welcome or message the first row then replaces.
        const steps =
            'F1 type:MCP~Tasks:~Run~Tool Enter wait:Which~tool? type:slow_compute Enter wait:step~1~of~2 Control+a type:2 Enter ' +
            'wait:step~2~of~2 Control+a type:journey-first Enter wait:How~should~it~run? Enter row:journey-first look';
        const landed = await askUi<KeysReport>(`ui-keys journey-run :: ${steps}`, 'keys-journey-run.json');
        const task = model.all().find(view => view.args.label === 'journey-first');
        assert.equal(task?.args.seconds, 2, `the form's answers reached the task: ${JSON.stringify(task?.args)}`);
        assert.equal(landed.activePart, 'sidebar', `the keyboard is in the sidebar, not on the page: ${JSON.stringify(landed)}`);
        assert.equal(landed.activeRole, 'tree');
        assert.match(landed.focused, /journey-first/, `the keyboard is on the new row: ${JSON.stringify(landed)}`);
        console.log(`[rowKeys] Run Tool from the Command Palette into an empty view, keyboard only: ${landed.pressed} keys`);
    });

    it('an emptied view keeps the keyboard when another client starts a task: it says so in a message, where a welcome button lost the keyboard to the page', async () => {
        const { owner, treeView } = api.testing;
        await emptied();
        assert.match(treeView.message ?? '', /^No tasks now\. .*Run Tool… \(the ▷ button in this view's title bar\)/, 'the emptied view says it in words');
        const drawn = await readRows('refill-empty', view => view.message !== '' && view.welcomeButtons.length === 0);
        assert.deepEqual(drawn.welcomeButtons, [], 'no welcome button for the keyboard to rest on: VS Code takes them away, focus and all, when a row comes');
        assert.equal(drawn.message, treeView.message, 'the view draws the message in place of rows');
        // The keyboard into the emptied view; another client's task arrives while it is there (Run Tool here
        // would move the keyboard to its row itself), and the report says where the keyboard is once its row is drawn.
        const since = Date.now();
        const refilled = askUi<KeysReport>('ui-keys refill :: Control+0 mark:refill-focused row:keys-refill look', 'keys-refill.json');
        await uiArtifact('mark-refill-focused.json', since, true);
        const client = await otherClient(api, 'keys-refill-client');
        try {
            const { task } = await client.request({ method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 300, label: 'keys-refill' }, task: {} } }, CreateTaskResultSchema);
            const landed = await refilled;
            assert.equal(landed.activePart, 'sidebar', `the keyboard stayed in the view, not on the page: ${JSON.stringify(landed)}`);
            assert.equal(landed.activeRole, 'tree', `the keyboard is in the rows: ${JSON.stringify(landed)}`);
            await waitFor('the message gone once the first row is drawn', () => (treeView.message === undefined ? true : undefined), 10_000, 50);
            await owner.cancel(task.taskId);
        } finally {
            await client.close();
        }
    });

    it('a question answered from the status bar item leaves the keyboard on its row, not on the page', async () => {
        const { model, pendingInputs } = api.testing;
        const file = 'keys-status.txt';
        const taskId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'confirm_delete', args: { filename: file }, mode: 'task' })) as string;
        const question = () => pendingInputs.get(taskId);
        await waitFor('the question', () => (question() && !question()?.hidden ? true : undefined), 20_000, 50);
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        await waitFor('the question hidden', () => question()?.hidden || undefined, 10_000, 50);
        // The item's click stays the same command while it updates: a new one each update made a click that
        // met an update do nothing ("Actual command not found"), which failed this test on a loaded machine.
        const { statusBar } = api.testing;
        await waitFor('the status bar asking', () => (/needs input/.test(statusBar.text) ? true : undefined), 10_000, 50);
        const click = statusBar.command;
        const other = await longRunning(api, 'keys-status-other');
        await waitFor('the status bar updated', () => (/2 tasks/.test(statusBar.text) ? true : undefined), 10_000, 50);
        assert.equal(statusBar.command, click, 'the click is the same command object after an update');
        await api.testing.owner.cancel(other);
        // The status bar item ("1 needs input") brings it back; Enter takes its safe default, Keep. Once nothing
        // waits, the item is gone: the keyboard VS Code would hand back to it goes to the task's row.
        const respond = vscode.window.setStatusBarMessage(`ui-respond ${file} via status`);
        try {
            await waitFor('the question back', () => (question() && !question()?.hidden ? true : undefined), 20_000, 50);
        } finally {
            respond.dispose();
        }
        const answered = await askUi<KeysReport>('ui-keys status-answer :: in:question Enter focus-in:sidebar', 'keys-status-answer.json');
        await waitFor('answered', () => (model.get(taskId)?.status === 'completed' ? true : undefined), 20_000, 50);
        assert.equal(model.get(taskId)?.statusMessage, 'Kept the file');
        assert.equal(answered.activePart, 'sidebar', `the keyboard is on the row, not on the page: ${JSON.stringify(answered)}`);
        assert.match(answered.focused, /keys-status\.txt/);
    });

    /** Selects a row as a click would, without opening it (a click or Space on a finished row opens its result). */
    async function select(taskId: string): Promise<void> {
        const { model, treeView } = api.testing;
        await treeView.reveal(model.get(taskId)!, { select: true, focus: true });
        await waitFor('the row selected', () => (treeView.selection.some(row => 'taskId' in row && row.taskId === taskId) ? true : undefined), 10_000, 50);
    }

    it('Delete on the focused running row asks to cancel that row, whatever row is selected', async () => {
        const { model } = api.testing;
        const done = await finishedAndOpened(api, 'keys-done');
        const running = await longRunning(api, 'keys-running');
        // The finished row selected, the keyboard then moved to the running one.
        await select(done);
        const moved = await askUi<KeysReport>('ui-keys delete-focused :: Control+0 focus:keys-running Delete', 'keys-delete-focused.json');
        assert.match(moved.focused, /keys-running/, `the focus is on the running row: ${moved.focused}`);
        assert.ok(moved.selected.some(row => /keys-done/.test(row)), `the finished row stays selected: ${moved.selected.join(' | ')}`);
        // Delete asks first, about the focused row (a test host refuses the modal dialog itself: the extension
        // notes each question it asks).
        await waitFor('the question before a cancel', () => (api.testing.cancelAsks.length > 0 ? true : undefined), 20_000, 50);
        assert.deepEqual(api.testing.cancelAsks, [running], 'asked about the focused row, not the selected one');
        await vscode.commands.executeCommand('notifications.clearAll');
        // Refused, the dialog cancelled nothing.
        assert.equal(model.get(running)?.status, 'working');
        assert.equal(model.get(done)?.status, 'completed');
        await api.testing.owner.cancel(running);
    });

    it("Enter on the focused row opens that row, never the selected one's", async () => {
        const { model } = api.testing;
        const done = model.all().find(view => view.args.label === 'keys-done')!.taskId;
        const running = await longRunning(api, 'keys-enter-running');
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        // The finished row selected, the keyboard on the running row: Enter has nothing to open there.
        await select(done);
        const onRunning = await askUi<KeysReport>('ui-keys enter-running :: Control+0 focus:keys-enter-running Enter', 'keys-enter-running.json');
        assert.match(onRunning.focused, /keys-enter-running/);
        assert.equal(resultPreviewTab('slow_compute: keys-done'), undefined, "Enter opened the selected row's result");
        assert.equal(model.get(running)?.status, 'working');
        // The keyboard back on the finished row: Enter opens its result.
        await askUi<KeysReport>('ui-keys enter-done :: Control+0 focus:keys-done Enter', 'keys-enter-done.json');
        await waitFor("the focused row's result", () => resultPreviewTab('slow_compute: keys-done'), 20_000, 100);
    });

    it('Space on a waiting row opens no question, and Enter brings it to the screen without answering it', async () => {
        const { model, pendingInputs } = api.testing;
        const file = 'keys-question.txt';
        const taskId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'confirm_delete', args: { filename: file }, mode: 'task' })) as string;
        const question = () => pendingInputs.get(taskId);
        await waitFor(`the question (${model.get(taskId)?.status}, ${question()?.hidden})`, () => (model.get(taskId)?.status === 'input_required' && question() && !question()?.hidden ? true : undefined), 20_000, 50);
        // Hidden as Escape hides it (earlier suites' terminals can take a key meant for it); the keyboard goes
        // back to the sidebar (Ctrl+0) and onto the waiting row.
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        await waitFor('the question hidden', () => question()?.hidden || undefined, 10_000, 50);
        // Space selects, as in any list. Had it opened the question, the Enter that follows would answer it unread.
        const spaced = await askUi<KeysReport>(`ui-keys question-space :: Control+0 focus:${file} Space`, 'keys-question-space.json');
        assert.match(spaced.focused, /keys-question\.txt/);
        // The selection reaches the tree through the extension host a moment after the key (on a loaded
        // machine, after the driver's report): wait for it there.
        const { treeView } = api.testing;
        await waitFor(`Space selecting the row (selected: ${spaced.selected.join(' | ')})`, () => (treeView.selection.some(row => 'taskId' in row && row.taskId === taskId) ? true : undefined), 10_000, 50);
        assert.equal(spaced.quickInput, undefined, `Space opened the question: ${spaced.quickInput}`);
        assert.equal(question()?.hidden, true);
        // Enter opens it, with the focus in it; nothing is answered until a key is pressed there.
        // (Each request to the driver changes the status bar, which can take the focus back to the item a
        // click there left it on: Ctrl+0 puts it back on the row first.)
        const entered = await askUi<KeysReport>(`ui-keys question-enter :: Control+0 focus:${file} Enter`, 'keys-question-enter.json');
        await waitFor('the question shown again', () => (question() && !question()?.hidden ? true : undefined), 10_000, 50);
        assert.match(entered.quickInput ?? '', /keys-question\.txt/, `the question is on screen: ${entered.quickInput}`);
        assert.match(entered.activeElement, /keys-question\.txt/, `the focus is in the question: ${entered.activeElement}`);
        assert.equal(model.get(taskId)?.status, 'input_required', `answered unseen: ${model.get(taskId)?.statusMessage}`);
        await api.testing.owner.cancel(taskId);
    });
});
