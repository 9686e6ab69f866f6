// SamplingResponder against a fake `vscode`: model choice, consent, message mapping, stops and errors.
import { fake, LanguageModelError } from '../../../support/fakeVscode.js';
import { promisesDrained, waitUntil } from '../../../support/wait.js';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { SamplingResponder } from '../../../../extension/lm/sampling.js';
import { RpcError } from '../../../../extension/client/rpcError';
import type { Reopenable } from '../../../../extension/tasks/pendingInputs';

type Params = CreateMessageRequest['params'];

interface SentRequest {
    messages: { role: string; content: string }[];
    options: { justification?: string; modelOptions?: Record<string, unknown> };
    token: { isCancellationRequested: boolean };
}

/** A model that replies with fixed chunks (or throws), recording what it was sent. */
function fakeModel(id: string, family: string, chunks: string[] | Error = ['Hello', ' there']) {
    const sent: SentRequest[] = [];
    return {
        id,
        family,
        name: family.toUpperCase(),
        vendor: 'test',
        sent,
        countTokens: (text: string) => Promise.resolve(Math.ceil(text.length / 4)),
        sendRequest(messages: SentRequest['messages'], options: SentRequest['options'], token: SentRequest['token']) {
            sent.push({ messages, options, token });
            if (chunks instanceof Error) {
                return Promise.reject(chunks);
            }
            return Promise.resolve({
                text: (async function* () {
                    for (const chunk of chunks) {
                        if (token.isCancellationRequested) {
                            return;
                        }
                        yield chunk;
                    }
                })(),
            });
        },
    };
}

class Memento {
    readonly values = new Map<string, unknown>();
    keys = () => [...this.values.keys()];
    get = <T>(key: string, fallback?: T) => (this.values.has(key) ? this.values.get(key) : fallback) as T;
    update = (key: string, value: unknown) => {
        if (value === undefined) {
            this.values.delete(key);
        } else {
            this.values.set(key, value);
        }
        return Promise.resolve();
    };
}

const log = { lines: [] as string[], info(m: string) { this.lines.push(m); }, warn(m: string) { this.lines.push(`warn: ${m}`); } };

function params(extra: Partial<Params> = {}): Params {
    return { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 100, ...extra };
}

const ctx = (signal = new AbortController().signal, clientName = 'Demo') => ({ clientName, signal });

async function rejectsWith(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
    await assert.rejects(promise, (err: unknown) => {
        assert.ok(err instanceof RpcError, `expected an RpcError, got ${String(err)}`);
        assert.match(err.message, pattern);
        return true;
    });
}

describe('SamplingResponder', () => {
    let memento: Memento;
    let preferred: string | undefined;
    let responder: SamplingResponder;

    beforeEach(() => {
        fake.reset();
        log.lines = [];
        memento = new Memento();
        preferred = undefined;
        responder = new SamplingResponder(memento, log, () => preferred);
        fake.onInformation = () => 'Allow';
    });

    it('answers with the hinted model after consent, mapping system prompt, roles and options', async () => {
        const mini = fakeModel('mini-1', 'gpt-mini');
        const sonnet = fakeModel('sonnet-1', 'claude-sonnet');
        fake.models = [mini, sonnet];
        const result = await responder.createMessage(
            params({
                systemPrompt: 'Be brief.',
                messages: [
                    { role: 'user', content: { type: 'text', text: 'Hi' } },
                    { role: 'assistant', content: { type: 'text', text: 'Yes?' } },
                    { role: 'user', content: { type: 'text', text: 'Sum 2+2' } },
                ],
                modelPreferences: { hints: [{ name: 'sonnet' }] },
                temperature: 0.2,
                maxTokens: 50,
            }),
            ctx(),
        );
        assert.deepEqual(result, { role: 'assistant', content: { type: 'text', text: 'Hello there' }, model: 'sonnet-1', stopReason: 'endTurn' });
        assert.deepEqual(fake.messages[0]!.message, 'Demo asks CLAUDE-SONNET for a reply to: “Sum 2+2”. Allow it?');
        assert.deepEqual(fake.messages[0]!.args, ['Deny', 'Allow', 'Allow always'], 'the primary (first) button is the safe one');
        const [request] = sonnet.sent;
        assert.deepEqual(request!.messages, [
            { role: 'user', content: 'System: Be brief.' },
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: 'Yes?' },
            { role: 'user', content: 'Sum 2+2' },
        ]);
        assert.deepEqual(request!.options.modelOptions, { max_tokens: 50, temperature: 0.2 });
        assert.match(request!.options.justification ?? '', /Demo/);
        assert.equal(mini.sent.length, 0);
    });

    it('falls back to the configured model, then the first one', async () => {
        const a = fakeModel('a', 'alpha');
        const b = fakeModel('b', 'beta');
        fake.models = [a, b];
        preferred = 'beta';
        assert.equal((await responder.createMessage(params({ modelPreferences: { hints: [{ name: 'gamma' }] } }), ctx())).model, 'b');
        preferred = undefined;
        assert.equal((await responder.createMessage(params(), ctx())).model, 'a');
    });

    it('asks once per client per session for "Allow", and remembers "Allow always" in the memento', async () => {
        fake.models = [fakeModel('m', 'model')];
        await responder.createMessage(params(), ctx());
        await responder.createMessage(params(), ctx());
        assert.equal(fake.messages.length, 1, '"Allow" covers the rest of the session');

        fake.onInformation = () => 'Allow always';
        await responder.createMessage(params(), ctx(undefined, 'Other'));
        assert.deepEqual(memento.get('mcpTasks.sampling.alwaysAllowedClients'), ['Other']);
        const fresh = new SamplingResponder(memento, log, () => undefined);
        await fresh.createMessage(params(), ctx(undefined, 'Other'));
        assert.equal(fake.messages.length, 2, 'a new session still trusts "Allow always"');

        await fresh.resetConsent();
        assert.equal(memento.get('mcpTasks.sampling.alwaysAllowedClients'), undefined);
        await fresh.createMessage(params(), ctx(undefined, 'Other'));
        assert.equal(fake.messages.length, 3, 'after a reset the user is asked again');
    });

    it('"Allow" for one tool does not allow another tool of the same client (issue 46 item 8)', async () => {
        fake.models = [fakeModel('m', 'model')];
        const asTool = (tool: string) => ({ ...ctx(), tool });
        await responder.createMessage(params(), asTool('weather__forecast'));
        await responder.createMessage(params(), asTool('weather__forecast'));
        assert.equal(fake.messages.length, 1, '"Allow" covers that tool for the session');
        await responder.createMessage(params(), asTool('write_haiku'));
        assert.equal(fake.messages.length, 2, 'another tool is asked about on its own');

        fake.onInformation = () => 'Allow always';
        await responder.createMessage(params(), asTool('deploy'));
        const fresh = new SamplingResponder(memento, log, () => undefined);
        await fresh.createMessage(params(), asTool('deploy'));
        assert.equal(fake.messages.length, 3, '"Allow always" is kept for that tool');
        await fresh.createMessage(params(), asTool('write_haiku'));
        assert.equal(fake.messages.length, 4, '…and only for it');
    });

    it('shares one consent question between concurrent requests from the same client', async () => {
        fake.models = [fakeModel('m', 'model')];
        let answer: (choice: string) => void = () => {};
        fake.onInformation = () => new Promise<string>(resolve => (answer = resolve));
        const both = Promise.all([responder.createMessage(params(), ctx()), responder.createMessage(params(), ctx())]);
        // Both requests have reached the consent question before it is answered.
        await promisesDrained();
        answer('Allow');
        assert.equal((await both).length, 2);
        assert.equal(fake.messages.length, 1);
    });

    it('fails with a clear error when denied, and asks again next time', async () => {
        fake.models = [fakeModel('m', 'model')];
        fake.onInformation = () => 'Deny';
        await rejectsWith(responder.createMessage(params(), ctx()), /The user denied sampling for Demo/);
        await rejectsWith(responder.createMessage(params(), ctx()), /The user denied sampling for Demo/);
        assert.equal(fake.messages.length, 2);
    });

    it('names the task and what it asks; a dismissed question stays open, and Respond brings it back as a pick whose Enter denies', async () => {
        fake.models = [fakeModel('m', 'model')];
        fake.onInformation = () => undefined;
        const questions: Reopenable[] = [];
        let released = 0;
        const reply = responder.createMessage(params({ messages: [{ role: 'user', content: { type: 'text', text: 'Write a haiku\n about   autumn' } }] }), {
            ...ctx(),
            asker: 'write_haiku: autumn',
            onQuestion: question => (questions.push(question), { dispose: () => released++ }),
        });
        await waitUntil(() => questions.length > 0, 'the consent question');
        assert.equal(fake.messages[0]!.message, 'write_haiku: autumn asks MODEL for a reply to: “Write a haiku about autumn”. Allow it?');
        assert.equal(questions.length, 1, 'the task can bring it back');
        assert.equal(questions[0]!.hidden, true, 'dismissed, not answered');

        questions[0]!.show();
        const pick = await fake.next();
        assert.equal(pick.title, 'write_haiku: autumn asks MODEL for a reply');
        assert.equal(pick.placeholder, '“Write a haiku about autumn” — allow it?');
        assert.deepEqual(pick.items.map(item => item.label), ['Deny', 'Allow', 'Allow always']);
        pick.escape();
        assert.equal(questions[0]!.hidden, true, 'Escape leaves it open');
        questions[0]!.show();
        const again = await fake.next();
        again.pick('Allow');
        assert.equal((await reply).model, 'm');
        assert.equal(released, 1, 'answered: nothing left to bring back');
    });

    it('fails when no model is available, and offers the Chat view (no setting could help)', async () => {
        fake.onWarning = (_message, ...actions) => actions[0];
        await rejectsWith(responder.createMessage(params(), ctx()), /No language model is available in VS Code for sampling/);
        const [notice] = fake.messages.filter(m => m.level === 'warning');
        assert.equal(notice?.message, 'MCP Tasks: no language model is available to answer Demo, so its task cannot use one. Sign in to a model provider, such as GitHub Copilot, in the Chat view.');
        assert.deepEqual(notice?.args, ['Open Chat']);
        assert.doesNotMatch(notice!.message, /-?\d{5}|MCP error/);
        await waitUntil(() => fake.commands.length > 0, 'Open Chat to run');
        assert.deepEqual(fake.commands, [{ id: 'workbench.action.chat.open', args: [] }]);
    });

    it('refuses non-text content before asking anything', async () => {
        fake.models = [fakeModel('m', 'model')];
        const image: Params = params({ messages: [{ role: 'user', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } }] });
        await rejectsWith(responder.createMessage(image, ctx()), /Message 1 has image content/);
        assert.equal(fake.messages.length, 0);
    });

    it('turns a LanguageModelError into an RpcError with its code', async () => {
        fake.models = [fakeModel('m', 'model', new LanguageModelError('quota exceeded', 'Blocked'))];
        await rejectsWith(responder.createMessage(params(), ctx()), /Language model error \(Blocked\): quota exceeded/);
    });

    it('cuts the reply at a stop sequence and stops the model', async () => {
        const model = fakeModel('m', 'model', ['one two', ' ST', 'OP three', ' four']);
        fake.models = [model];
        const result = await responder.createMessage(params({ stopSequences: ['STOP'] }), ctx());
        assert.equal(result.content.type === 'text' && result.content.text, 'one two ');
        assert.equal(result.stopReason, 'stopSequence');
        assert.equal(model.sent[0]!.token.isCancellationRequested, true);
    });

    it('stops at maxTokens, counting with the model', async () => {
        const model = fakeModel('m', 'model', Array.from({ length: 50 }, () => 'abcd'));
        fake.models = [model];
        const result = await responder.createMessage(params({ maxTokens: 10 }), ctx());
        assert.equal(result.stopReason, 'maxTokens');
        assert.equal(result.content.type === 'text' && result.content.text, 'abcd'.repeat(10));
    });

    it('cancels the model request when the MCP request is aborted', async () => {
        const controller = new AbortController();
        const model = fakeModel('m', 'model', ['a', 'b']);
        fake.models = [model];
        fake.onInformation = () => {
            controller.abort();
            return 'Allow';
        };
        await rejectsWith(responder.createMessage(params(), ctx(controller.signal)), /Sampling was cancelled/);
        assert.equal(model.sent.length, 0, 'nothing is sent once the request is gone');
    });
});
