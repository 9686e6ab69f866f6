import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { askUi, finishedAndOpened, readyOverHttp, startInVsCode, waitFor } from './util';

interface QuestionFocus {
    inQuestion: boolean;
    inTree: boolean;
    activeTag: string;
    activeLabel: string;
    title: string;
}

/**
 * A question that opens takes the keyboard focus, whatever held it: Enter then answers the question
 * (its safe default, Keep), never the Tasks view's selected row (whose Enter would open its result).
 * The UI driver presses Enter where the focus is, as a user who just saw the question would.
 */
describe('a question takes the focus', () => {
    let api: McpTasksTestApi;

    before(async () => {
        api = await readyOverHttp();
        await startInVsCode(60_000, api);
    });

    after(async () => {
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    it('Run Tool as a task with a row focused in the Tasks view: the question holds the focus and Enter answers it', async () => {
        const { model, pendingInputs } = api.testing;
        // A finished row, focused in the view: what Enter would act on if the view kept the focus.
        await finishedAndOpened(api, 'focus-row');
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
        await vscode.commands.executeCommand('list.focusFirst');

        const taskId = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'confirm_delete', args: { filename: 'ui-focus.txt' }, mode: 'task' })) as string;
        assert.ok(taskId);
        await waitFor('the question shown', () => (pendingInputs.get(taskId) && !pendingInputs.get(taskId)?.hidden ? true : undefined), 30_000, 50);
        const focus = await askUi<QuestionFocus>('ui-enter-question runtool', 'question-focus-runtool.json');
        assert.match(focus.title, /ui-focus\.txt/, 'the question is the one on screen');
        assert.ok(focus.inQuestion, `the focus is in the question, not ${focus.activeTag} "${focus.activeLabel}"`);
        const view = await waitFor('the question answered by Enter', () => (model.get(taskId)?.status === 'completed' ? model.get(taskId) : undefined), 30_000, 50);
        assert.equal(view.statusMessage, 'Kept the file', 'Enter took the safe default');
    });
});
