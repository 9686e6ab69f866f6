import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planFromSchema, type PromptStep } from '../../../../extension/input/schemaPlan.js';
import { choiceLabel, fieldPrompt, inputPlaceholder, oneLine, singleChoices, stepTitle } from '../../../../extension/input/stepText.js';
import { untilAborted } from '../../../../extension/input/untilAborted.js';

function step(property: Record<string, unknown>, required = true): PromptStep {
    const plan = planFromSchema({ type: 'object', properties: { f: property }, required: required ? ['f'] : [] });
    assert.ok(plan.ok);
    return plan.steps[0]!;
}

describe('prompt text', () => {
    it('titles each step with the heading and "(step i of n)", and a one-step form with the heading alone', () => {
        assert.equal(stepTitle('Deploy', 2, 3), 'Deploy (step 2 of 3)');
        assert.equal(stepTitle('Delete the file?', 1, 1), 'Delete the file?');
    });

    it('words an empty choice instead of showing a blank row', () => {
        assert.equal(choiceLabel(''), '(none)');
        assert.equal(choiceLabel('build'), 'build');
    });

    it('a choice shows its words, not its raw value beside them (issue 46: "Keep the file  keep")', () => {
        const { choices } = singleChoices([{ label: 'Keep the file', value: 'keep' }, { label: "Delete 'a.txt'", value: 'delete' }], true);
        assert.deepEqual(choices, [{ label: 'Keep the file', value: 'keep' }, { label: "Delete 'a.txt'", value: 'delete' }]);
        assert.ok(choices.every(choice => !('description' in choice)));
    });

    it('an optional choice offers Skip, but not beside a "(none)" choice that reads the same', () => {
        assert.equal(singleChoices([{ label: 'build', value: 'build' }], false).skip, true);
        assert.equal(singleChoices([{ label: 'build', value: 'build' }], true).skip, false);
        const withNone = singleChoices([{ label: '', value: '' }, { label: 'build', value: 'build' }], false);
        assert.equal(withNone.skip, false);
        assert.equal(withNone.choices[0]!.label, '(none)');
    });

    it('flattens and shortens long headings, and says so', () => {
        assert.deepEqual(oneLine('  Pick\n a   target '), { text: 'Pick a target', truncated: false });
        const long = oneLine('x'.repeat(150));
        assert.equal(long.truncated, true);
        assert.equal([...long.text].length, 100);
        assert.ok(long.text.endsWith('…'));
    });

    it('names the field, marks optional ones and adds the description', () => {
        assert.equal(fieldPrompt(step({ type: 'string', title: 'Name', description: 'Full name' })), 'Name: Full name');
        assert.equal(fieldPrompt(step({ type: 'string' }, false)), 'f (optional)');
    });

    it('shows the expected shape in the placeholder', () => {
        assert.equal(inputPlaceholder(step({ type: 'string', format: 'date' })), 'YYYY-MM-DD');
        assert.equal(inputPlaceholder(step({ type: 'string', format: 'email' }, false)), 'name@example.com, leave empty to skip');
        assert.equal(inputPlaceholder(step({ type: 'string', minLength: 3, maxLength: 8 })), '3 to 8 characters');
        assert.equal(inputPlaceholder(step({ type: 'string' })), '');
        assert.equal(inputPlaceholder(step({ type: 'integer', minimum: 1, maximum: 10 })), 'A whole number, ≥ 1 and ≤ 10');
        assert.equal(inputPlaceholder(step({ type: 'number', exclusiveMinimum: 0 })), 'A number, > 0');
    });
});

describe('untilAborted', () => {
    it('passes the value through when not aborted', async () => {
        assert.equal(await untilAborted(Promise.resolve(7), new AbortController().signal), 7);
        assert.equal(await untilAborted(Promise.resolve(7), undefined), 7);
    });

    it('gives undefined at once when the signal aborts, even if the promise never settles', async () => {
        const controller = new AbortController();
        const waiting = untilAborted(new Promise<number>(() => {}), controller.signal);
        controller.abort();
        assert.equal(await waiting, undefined);
        assert.equal(await untilAborted(Promise.resolve(1), AbortSignal.abort()), undefined);
    });

    it('passes rejections through', async () => {
        await assert.rejects(untilAborted(Promise.reject(new Error('boom')), new AbortController().signal), /boom/);
    });
});
