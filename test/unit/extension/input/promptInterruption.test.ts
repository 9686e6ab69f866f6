// A task's prompt hidden by Escape or another quick input waits for Respond instead of answering.
import { fake } from '../../../support/fakeVscode.js';
import { promisesDrained } from '../../../support/wait.js';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { answerElicitation, type PendingPrompt } from '../../../../extension/input/prompter.js';

type Params = ElicitRequest['params'];

function form(properties: Record<string, unknown>, required: string[] = [], message = 'Configure the job'): Params {
    return { message, requestedSchema: { type: 'object', properties, required } } as Params;
}

/** An elicitation for a task: its prompt is handed out so Respond can bring it back. */
function forTask(params: Params, abort = new AbortController()) {
    let prompt: PendingPrompt | undefined;
    let settled = false;
    const result = answerElicitation(params, { signal: abort.signal, clientName: 'Demo', onPrompt: p => (prompt = p) });
    void result.then(() => (settled = true));
    return { result, abort, prompt: () => prompt!, settled: () => settled };
}

beforeEach(() => fake.reset());

describe('a hidden task prompt waits for Respond', () => {
    it('Escape leaves the request unanswered; show() reopens the same step, earlier answers and the draft kept', async () => {
        const task = forTask(form({ a: { type: 'string' }, b: { type: 'string' } }, ['a', 'b']));
        const first = await fake.next();
        first.typeText('one');
        first.enter();
        const second = await fake.next();
        second.typeText('half-typed');
        second.escape();
        await promisesDrained();
        assert.equal(task.settled(), false, 'no answer went to the server');
        assert.equal(task.prompt().hidden, true);
        assert.equal(fake.opened.filter(i => i.visible).length, 0, 'nothing on screen');

        task.prompt().show();
        const again = await fake.next();
        assert.notEqual(again, second);
        assert.match(again.title ?? '', /step 2 of 2/);
        assert.equal(again.value, 'half-typed', 'what was typed is still there');
        assert.equal(task.prompt().hidden, false);
        again.typeText('two');
        again.enter();
        assert.deepEqual(await task.result, { action: 'accept', content: { a: 'one', b: 'two' } });
    });

    it('a yes/no prompt hidden twice still takes the answer after Respond', async () => {
        const task = forTask(form({ confirm: { type: 'boolean', default: false } }, ['confirm']));
        (await fake.next()).escape();
        await promisesDrained();
        task.prompt().show();
        (await fake.next()).escape();
        await promisesDrained();
        assert.equal(task.settled(), false);
        task.prompt().show();
        (await fake.next()).pick('Yes');
        assert.deepEqual(await task.result, { action: 'accept', content: { confirm: true } });
    });

    it('only an explicit Decline declines', async () => {
        const task = forTask(form({ confirm: { type: 'boolean' } }, ['confirm']));
        (await fake.next()).escape();
        await promisesDrained();
        task.prompt().show();
        (await fake.next()).pick('Decline');
        assert.deepEqual(await task.result, { action: 'decline' });
    });

    it('cancelling the task while its prompt is hidden answers cancel', async () => {
        const task = forTask(form({ confirm: { type: 'boolean' } }, ['confirm']));
        (await fake.next()).escape();
        await promisesDrained();
        task.abort.abort();
        assert.deepEqual(await task.result, { action: 'cancel' });
        task.prompt().show();
        await promisesDrained();
        assert.equal(fake.opened.filter(i => i.visible).length, 0, 'a cancelled prompt does not come back');
    });

    it('a hidden prompt lets the next one show, and Respond brings it back ahead of that one', async () => {
        const first = forTask(form({ x: { type: 'string' } }, ['x'], 'first'));
        (await fake.next()).escape();
        const second = forTask(form({ y: { type: 'string' } }, ['y'], 'second'));
        const secondInput = await fake.next();
        assert.match(secondInput.title ?? '', /second/, 'the queue moved on');
        secondInput.typeText('kept');

        first.prompt().show();
        await promisesDrained();
        assert.equal(secondInput.disposed, true, 'the prompt on screen stepped aside');
        const firstAgain = await fake.next();
        assert.match(firstAgain.title ?? '', /first/);
        firstAgain.typeText('1');
        firstAgain.enter();
        assert.deepEqual(await first.result, { action: 'accept', content: { x: '1' } });

        const secondAgain = await fake.next();
        assert.match(secondAgain.title ?? '', /second/, 'the prompt that stepped aside comes back');
        secondAgain.typeText('2');
        secondAgain.enter();
        assert.deepEqual(await second.result, { action: 'accept', content: { y: '2' } });
    });

    it('an elicitation with no task to Respond from is still cancelled by Escape', async () => {
        const result = answerElicitation(form({ confirm: { type: 'boolean' } }, ['confirm']), { signal: new AbortController().signal, clientName: 'Demo' });
        (await fake.next()).escape();
        assert.deepEqual(await result, { action: 'cancel' });
    });
});
