// The prompt walk against a fake `vscode`: steps, defaults, Skip/Decline/Back, Escape, abort, queueing.
import { fake, type FakeQuickInput } from '../../../support/fakeVscode.js';
import { promisesDrained } from '../../../support/wait.js';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { answerElicitation, collectToolArguments, type PendingPrompt } from '../../../../extension/input/prompter.js';
import { runQuestion } from '../../../../server/src/commands/tool.js';
import { deleteQuestion } from '../../../../server/src/demo/confirmDelete.js';
import { safeConfirmSchema } from '../../../../server/src/tools/safeConfirm.js';

type Params = ElicitRequest['params'];

function form(properties: Record<string, unknown>, required: string[] = [], message = 'Configure the job'): Params {
    return { message, requestedSchema: { type: 'object', properties, required } } as Params;
}

const ctx = (signal = new AbortController().signal) => ({ signal, clientName: 'Demo' });

beforeEach(() => fake.reset());

describe('answerElicitation (form mode)', () => {
    it('walks every kind of field and accepts typed content', async () => {
        const result = answerElicitation(
            form(
                {
                    name: { type: 'string', title: 'Name', description: 'Who runs it', minLength: 2, default: 'Ada' },
                    count: { type: 'integer', maximum: 10 },
                    dryRun: { type: 'boolean', default: true },
                    color: { type: 'string', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }] },
                    tags: { type: 'array', items: { enum: ['a', 'b', 'c'] }, default: ['b'] },
                },
                ['name', 'count', 'dryRun', 'color'],
            ),
            ctx(),
        );

        const name = await fake.next();
        assert.equal(name.kind, 'input');
        assert.equal(name.title, 'Demo: Configure the job (step 1 of 5)');
        assert.equal(name.prompt, 'Name: Who runs it');
        assert.equal(name.value, 'Ada', 'prefilled from the default');
        assert.equal(name.ignoreFocusOut, true);
        assert.deepEqual(
            name.buttons.map(b => (b as { tooltip: string }).tooltip),
            ['Decline'],
        );
        name.typeText('A');
        assert.equal(name.validationMessage, 'Must be at least 2 characters');
        name.enter();
        assert.equal(name.disposed, false, 'an invalid value keeps the box open');
        name.typeText('Grace');
        assert.equal(name.validationMessage, undefined);
        name.enter();
        assert.equal(name.disposed, true);

        const count = await fake.next();
        assert.equal(count.title, 'Demo: Configure the job (step 2 of 5)');
        count.typeText('4.5');
        assert.equal(count.validationMessage, 'Must be an integer');
        count.typeText('11');
        assert.equal(count.validationMessage, 'Must be ≤ 10');
        count.typeText('7');
        count.enter();

        const dryRun = await fake.next();
        assert.equal(dryRun.kind, 'pick');
        assert.deepEqual(dryRun.labels(), ['Yes', 'No', '---', 'Decline']);
        assert.deepEqual(
            dryRun.activeItems.map(i => i.label),
            ['Yes'],
            'the default is preselected',
        );
        dryRun.pick('No');

        const color = await fake.next();
        assert.deepEqual(color.labels(), ['Red', 'Green', '---', 'Decline']);
        color.pick('Green');

        const tags = await fake.next();
        assert.equal(tags.canSelectMany, true);
        assert.deepEqual(
            tags.selectedItems.map(i => i.label),
            ['b'],
            'defaults are picked',
        );
        tags.check(['a', 'c']);
        tags.enter();

        assert.deepEqual(await result, { action: 'accept', content: { name: 'Grace', count: 7, dryRun: false, color: 'g', tags: ['a', 'c'] } });
    });

    it('offers Skip on optional choices and leaves skipped fields out', async () => {
        const result = answerElicitation(form({ mode: { type: 'string', enum: ['fast', 'safe'] }, note: { type: 'string' }, level: { type: 'array', items: { enum: ['x'] } } }), ctx());
        const mode = await fake.next();
        assert.deepEqual(mode.labels(), ['fast', 'safe', '---', 'Skip', 'Decline']);
        mode.pick('Skip');
        const note = await fake.next();
        assert.match(note.placeholder ?? '', /leave empty to skip/);
        note.enter();
        const level = await fake.next();
        assert.match(level.placeholder ?? '', /pick none to skip/);
        level.enter();
        assert.deepEqual(await result, { action: 'accept', content: {} });
    });

    it('keeps a multi-select open with the reason when too few are picked', async () => {
        const result = answerElicitation(form({ tags: { type: 'array', items: { enum: ['a', 'b'] }, minItems: 2 } }, ['tags']), ctx());
        const tags = await fake.next();
        tags.check(['a']);
        tags.enter();
        assert.equal(tags.disposed, false);
        assert.match(tags.placeholder ?? '', /^Pick at least 2/);
        tags.check(['a', 'b']);
        tags.enter();
        assert.deepEqual(await result, { action: 'accept', content: { tags: ['a', 'b'] } });
    });

    it('declines from a quick pick item, an input box button or a multi-select button', async () => {
        const fromItem = answerElicitation(form({ ok: { type: 'boolean' } }), ctx());
        (await fake.next()).pick('Decline');
        assert.deepEqual(await fromItem, { action: 'decline' });

        const fromBox = answerElicitation(form({ text: { type: 'string' } }), ctx());
        (await fake.next()).press('Decline');
        assert.deepEqual(await fromBox, { action: 'decline' });

        const fromMulti = answerElicitation(form({ tags: { type: 'array', items: { enum: ['a'] } } }), ctx());
        (await fake.next()).press('Decline');
        assert.deepEqual(await fromMulti, { action: 'decline' });
    });

    it('cancels on Escape at any step', async () => {
        const result = answerElicitation(form({ a: { type: 'string' }, b: { type: 'string' } }, ['a', 'b']), ctx());
        (await fake.next()).typeText('first');
        fake.opened.at(-1)!.enter();
        (await fake.next()).escape();
        assert.deepEqual(await result, { action: 'cancel' });
    });

    it('goes back to the previous step with its answer kept', async () => {
        const result = answerElicitation(form({ a: { type: 'string' }, b: { type: 'boolean' } }, ['a', 'b']), ctx());
        const first = await fake.next();
        first.typeText('one');
        first.enter();
        const second = await fake.next();
        second.press('Back');
        const again = await fake.next();
        assert.equal(again.title, 'Demo: Configure the job (step 1 of 2)');
        assert.equal(again.value, 'one');
        again.typeText('uno');
        again.enter();
        (await fake.next()).pick('Yes');
        assert.deepEqual(await result, { action: 'accept', content: { a: 'uno', b: true } });
    });

    it('closes the open prompt and cancels when the request is aborted', async () => {
        const controller = new AbortController();
        const result = answerElicitation(form({ a: { type: 'string' } }, ['a']), ctx(controller.signal));
        const box = await fake.next();
        controller.abort();
        assert.deepEqual(await result, { action: 'cancel' });
        assert.equal(box.disposed, true);
    });

    it('does not show anything for a request already aborted', async () => {
        const result = await answerElicitation(form({ a: { type: 'string' } }), ctx(AbortSignal.abort()));
        assert.deepEqual(result, { action: 'cancel' });
        assert.equal(fake.opened.length, 0);
    });

    it('queues concurrent prompts instead of letting one hide the other, and skips aborted ones', async () => {
        let firstPrompt: PendingPrompt | undefined;
        const first = answerElicitation(form({ a: { type: 'string' } }, ['a'], 'First'), { ...ctx(), onPrompt: p => (firstPrompt = p) });
        const controller = new AbortController();
        const second = answerElicitation(form({ b: { type: 'string' } }, ['b'], 'Second'), ctx(controller.signal));
        const third = answerElicitation(form({ c: { type: 'string' } }, ['c'], 'Third'), ctx());
        const box = await fake.next();
        assert.match(box.title ?? '', /^Demo: First/);
        controller.abort();
        assert.deepEqual(await second, { action: 'cancel' }, 'a queued prompt cancels without waiting its turn');
        firstPrompt!.show();
        assert.equal(box.shown, 2, 'show() re-shows the open step');
        box.typeText('1');
        box.enter();
        assert.deepEqual(await first, { action: 'accept', content: { a: '1' } });
        const next = await fake.next();
        assert.match(next.title ?? '', /^Demo: Third/);
        next.typeText('3');
        next.enter();
        assert.deepEqual(await third, { action: 'accept', content: { c: '3' } });
        const opened = fake.opened.length;
        firstPrompt!.show();
        assert.equal(fake.opened.length, opened, 'a finished prompt shows nothing');
        assert.equal(box.shown, 2);
    });

    it("brings a waiting task's prompt forward; the one on screen steps aside and resumes at its step, answers kept", async () => {
        const prompts = new Map<string, PendingPrompt>();
        const ask = (name: string, fields: string[]) =>
            answerElicitation(form(Object.fromEntries(fields.map(f => [f, { type: 'string' }])), fields, name), { ...ctx(), onPrompt: p => prompts.set(name, p) });
        const onScreen = ask('Deploy', ['region', 'size']);
        const behind = ask('Backup', ['target']);
        const last = ask('Report', ['title']);

        const region = await fake.next();
        assert.match(region.title ?? '', /^Demo: Deploy \(step 1 of 2\)/);
        region.typeText('eu');
        region.enter();
        const size = await fake.next();
        assert.match(size.title ?? '', /^Demo: Deploy \(step 2 of 2\)/);

        // Respond on Report's row: its prompt shows now, though Backup came first.
        prompts.get('Report')!.show();
        assert.ok(size.disposed, 'the step on screen made way');
        const report = await fake.next();
        assert.match(report.title ?? '', /^Demo: Report/);
        report.typeText('weekly');
        report.enter();
        assert.deepEqual(await last, { action: 'accept', content: { title: 'weekly' } });

        const resumed = await fake.next();
        assert.match(resumed.title ?? '', /^Demo: Deploy \(step 2 of 2\)/, 'the prompt that stepped aside comes back first, at the same step');
        resumed.typeText('large');
        resumed.enter();
        assert.deepEqual(await onScreen, { action: 'accept', content: { region: 'eu', size: 'large' } });

        const backup = await fake.next();
        assert.match(backup.title ?? '', /^Demo: Backup/);
        backup.typeText('s3');
        backup.enter();
        assert.deepEqual(await behind, { action: 'accept', content: { target: 's3' } });
    });

    it('brings forward a prompt waiting behind a form with no fields, which is asked again afterwards', async () => {
        const prompts = new Map<string, PendingPrompt>();
        const proceed = answerElicitation(form({}, [], 'Proceed?'), { ...ctx(), onPrompt: p => prompts.set('proceed', p) });
        const name = answerElicitation(form({ n: { type: 'string' } }, ['n'], 'Name?'), { ...ctx(), onPrompt: p => prompts.set('name', p) });
        const confirm = await fake.next();
        assert.deepEqual(confirm.labels(), ['Accept', 'Decline']);
        prompts.get('name')!.show();
        const box = await fake.next();
        assert.match(box.title ?? '', /^Demo: Name\?/);
        box.typeText('x');
        box.enter();
        assert.deepEqual(await name, { action: 'accept', content: { n: 'x' } });
        const again = await fake.next();
        assert.deepEqual(again.labels(), ['Accept', 'Decline']);
        again.pick('Decline');
        assert.deepEqual(await proceed, { action: 'decline' });
    });

    it('asks to accept or decline a form with no fields', async () => {
        const result = answerElicitation(form({}, [], 'Proceed?'), ctx());
        const pick = await fake.next();
        assert.deepEqual(pick.labels(), ['Accept', 'Decline']);
        pick.pick('Accept');
        assert.deepEqual(await result, { action: 'accept', content: {} });
    });

    it('asks a one-step question in the title without "(step 1 of 1)", and says how No differs from Decline', async () => {
        const result = answerElicitation(form({ confirm: { type: 'boolean', title: 'Proceed', description: 'Yes to go on' } }, ['confirm'], 'Go on?'), ctx());
        const pick = await fake.next();
        assert.equal(pick.title, 'Demo: Go on?');
        assert.equal(pick.placeholder, 'Proceed: Yes to go on');
        const described = Object.fromEntries(pick.items.map(item => [item.label, (item as { description?: string }).description]));
        assert.equal(described.No, 'Send the answer No');
        assert.equal(described.Decline, 'Answer nothing: the server is told you refused the request');
        pick.pick('No');
        assert.deepEqual(await result, { action: 'accept', content: { confirm: false } });
    });

    // The server's confirmation questions, as they go on the wire: the safe choice first and the default.
    const confirmations = [
        { name: 'confirm_delete', schema: safeConfirmSchema(deleteQuestion('a.txt')), labels: ['Keep the file', "Delete 'a.txt'"], safe: { confirm: 'keep' }, unsafe: { confirm: 'delete' } },
        { name: 'a command with confirm', schema: safeConfirmSchema(runQuestion('make deploy')), labels: ['Do not run it', 'Run the command'], safe: { run: 'cancel' }, unsafe: { run: 'run' } },
    ];
    for (const { name, schema, labels, safe, unsafe } of confirmations) {
        it(`opens ${name}'s question on the safe choice, so Enter sends it; the other is picked by name`, async () => {
            const params = { mode: 'form', message: 'Sure?', requestedSchema: schema } as Params;
            const first = answerElicitation(params, ctx());
            const pick = await fake.next();
            assert.deepEqual(pick.labels(), [...labels, '---', 'Decline']);
            assert.deepEqual(
                pick.activeItems.map(item => item.label),
                [labels[0]],
                'the safe choice is the active row',
            );
            pick.enter();
            assert.deepEqual(await first, { action: 'accept', content: safe });

            const second = answerElicitation(params, ctx());
            (await fake.next()).pick(labels[1]!);
            assert.deepEqual(await second, { action: 'accept', content: unsafe });
        });
    }

    it('shows an empty enum value as "(none)", not a blank first row', async () => {
        const result = answerElicitation(form({ fail: { type: 'string', enum: ['', 'build', 'test'], default: '' } }, ['fail'], 'Which step fails?'), ctx());
        const pick = await fake.next();
        assert.deepEqual(pick.labels().slice(0, 3), ['(none)', 'build', 'test']);
        pick.pick('(none)');
        assert.deepEqual(await result, { action: 'accept', content: { fail: '' } });
    });

    it('declines a schema it cannot show, with a warning naming the problem', async () => {
        const result = await answerElicitation(form({ deep: { type: 'object', properties: {} } }), ctx());
        assert.deepEqual(result, { action: 'decline' });
        assert.equal(fake.messages.length, 1);
        assert.equal(fake.messages[0]!.level, 'warning');
        assert.match(fake.messages[0]!.message, /Demo asked for input .* declined\. Property "deep" is a nested object/);
    });

    it('shortens a long message in the title and shows it whole in the prompt', async () => {
        const message = `Please ${'really '.repeat(30)}confirm`;
        const result = answerElicitation(form({ a: { type: 'string' } }, ['a'], message), ctx());
        const box = await fake.next();
        // A one-step form has no "(step 1 of 1)".
        assert.match(box.title ?? '', /…$/);
        assert.ok(box.prompt?.startsWith(`Demo: ${message}`));
        box.escape();
        await result;
    });
});

describe('answerElicitation (URL mode)', () => {
    const url = (href: string): Params => ({ mode: 'url', message: 'Sign in to continue', url: href, elicitationId: 'e1' });

    it('opens the page only after consent, showing the host', async () => {
        fake.onInformation = () => 'Open';
        assert.deepEqual(await answerElicitation(url('https://login.example.com/start?x=1'), ctx()), { action: 'accept' });
        const [shown] = fake.messages;
        assert.match(shown!.message, /Sign in to continue[\s\S]*login\.example\.com/);
        assert.equal((shown!.args[0] as { modal: boolean }).modal, true);
        assert.deepEqual(shown!.args.slice(1), ['Open', 'Decline']);
        assert.deepEqual(fake.openedExternal, ['https://login.example.com/start?x=1']);
    });

    it('declines, cancels on dismissal, and opens nothing in either case', async () => {
        fake.onInformation = () => 'Decline';
        assert.deepEqual(await answerElicitation(url('https://example.com'), ctx()), { action: 'decline' });
        fake.onInformation = () => undefined;
        assert.deepEqual(await answerElicitation(url('https://example.com'), ctx()), { action: 'cancel' });
        assert.deepEqual(fake.openedExternal, []);
    });

    it('cancels when VS Code\'s own link check is refused', async () => {
        fake.onInformation = () => 'Open';
        fake.openExternalResult = false;
        assert.deepEqual(await answerElicitation(url('https://example.com'), ctx()), { action: 'cancel' });
    });

    it('cancels when aborted while the dialog is open, and never opens afterwards', async () => {
        const controller = new AbortController();
        let answer: (choice: string) => void = () => {};
        fake.onInformation = () => new Promise<string>(resolve => (answer = resolve));
        const result = answerElicitation(url('https://example.com'), ctx(controller.signal));
        controller.abort();
        assert.deepEqual(await result, { action: 'cancel' });
        answer('Open');
        await promisesDrained();
        assert.deepEqual(fake.openedExternal, []);
    });

    it('refuses links that are not web pages', async () => {
        fake.onInformation = () => 'Open';
        for (const href of ['command:workbench.action.terminal.new', 'vscode://settings', 'file:///etc/passwd']) {
            assert.deepEqual(await answerElicitation(url(href), ctx()), { action: 'decline' }, href);
        }
        assert.deepEqual(fake.openedExternal, []);
        assert.ok(fake.messages.every(m => m.level === 'warning'));
    });
});

describe('collectToolArguments', () => {
    const tool = (inputSchema: object) => ({ name: 'sleep', title: 'Sleep a while', inputSchema });

    it('collects typed arguments without a Decline option', async () => {
        const result = collectToolArguments(
            tool({ type: 'object', properties: { seconds: { type: 'number', default: 5 }, loud: { type: 'boolean' } }, required: ['seconds'], additionalProperties: false }),
        );
        const seconds: FakeQuickInput = await fake.next();
        assert.equal(seconds.title, 'Sleep a while (step 1 of 2)');
        assert.equal(seconds.value, '5');
        assert.deepEqual(seconds.buttons, []);
        seconds.enter();
        const loud = await fake.next();
        assert.deepEqual(loud.labels(), ['Yes', 'No', '---', 'Skip']);
        loud.pick('Yes');
        assert.deepEqual(await result, { seconds: 5, loud: true });
    });

    it('returns {} at once for a tool without arguments, and undefined on Escape or abort', async () => {
        assert.deepEqual(await collectToolArguments({ name: 'ping', inputSchema: { type: 'object' } }), {});
        assert.equal(fake.opened.length, 0);

        const escaped = collectToolArguments(tool({ type: 'object', properties: { a: { type: 'string' } } }));
        (await fake.next()).escape();
        assert.equal(await escaped, undefined);

        const controller = new AbortController();
        const aborted = collectToolArguments(tool({ type: 'object', properties: { a: { type: 'string' } } }), controller.signal);
        await fake.next();
        controller.abort();
        assert.equal(await aborted, undefined);
    });

    it('reports a schema it cannot show and returns undefined', async () => {
        assert.equal(await collectToolArguments(tool({ type: 'object', properties: { list: { type: 'array', items: { type: 'string' } } } })), undefined);
        assert.equal(fake.messages[0]!.level, 'error');
        assert.match(fake.messages[0]!.message, /Sleep a while\. Property "list" is an array/);
    });
});
