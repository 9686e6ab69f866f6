import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { plainMessages, StopScanner, TokenBudget, UnsupportedSamplingInput } from '../../../../extension/lm/samplingText.js';

type Messages = CreateMessageRequest['params']['messages'];
const text = (role: 'user' | 'assistant', value: string) => ({ role, content: { type: 'text' as const, text: value } });

describe('plainMessages', () => {
    it('keeps roles and order, with the system prompt first as a marked user message', () => {
        const messages: Messages = [text('user', 'Hi'), text('assistant', 'Hello'), text('user', 'Sum 2+2')];
        assert.deepEqual(plainMessages({ messages, systemPrompt: 'Be brief.' }), [
            { role: 'user', text: 'System: Be brief.' },
            { role: 'user', text: 'Hi' },
            { role: 'assistant', text: 'Hello' },
            { role: 'user', text: 'Sum 2+2' },
        ]);
        assert.deepEqual(plainMessages({ messages: [text('user', 'Hi')] }), [{ role: 'user', text: 'Hi' }]);
    });

    it('joins arrays of text blocks', () => {
        const messages: Messages = [{ role: 'user', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] }];
        assert.deepEqual(plainMessages({ messages }), [{ role: 'user', text: 'one\ntwo' }]);
    });

    it('refuses non-text content, naming the message and the content type', () => {
        const messages: Messages = [text('user', 'Look:'), { role: 'user', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } }];
        assert.throws(() => plainMessages({ messages }), (err: unknown) => err instanceof UnsupportedSamplingInput && /Message 2 has image content/.test(err.message));
        const audio: Messages = [{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] }];
        assert.throws(() => plainMessages({ messages: audio }), /Message 1 has audio content/);
    });

    it('refuses a request with no user message', () => {
        assert.throws(() => plainMessages({ messages: [] }), /no user message/);
        assert.throws(() => plainMessages({ messages: [text('assistant', 'Hello')] }), /no user message/);
    });
});

describe('StopScanner', () => {
    it('collects everything when there are no stop sequences', () => {
        const scanner = new StopScanner(undefined);
        assert.equal(scanner.push('Hello, '), false);
        assert.equal(scanner.push('world'), false);
        assert.equal(scanner.text, 'Hello, world');
    });

    it('cuts before the earliest stop sequence, also across chunks', () => {
        const scanner = new StopScanner(['END', '\n\n']);
        assert.equal(scanner.push('one\n'), false);
        assert.equal(scanner.push('\ntwo END'), true);
        assert.equal(scanner.text, 'one');
    });

    it('finds a stop sequence split over several chunks', () => {
        const scanner = new StopScanner(['STOP']);
        for (const chunk of ['abc S', 'T', 'O']) {
            assert.equal(scanner.push(chunk), false);
        }
        assert.equal(scanner.push('P tail'), true);
        assert.equal(scanner.text, 'abc ');
    });

    it('ignores empty stop sequences', () => {
        const scanner = new StopScanner(['']);
        assert.equal(scanner.push('text'), false);
        assert.equal(scanner.text, 'text');
    });
});

describe('TokenBudget', () => {
    it('counts only once the text could have reached the limit, then narrows in', () => {
        const budget = new TokenBudget(100);
        assert.equal(budget.due(49), false);
        assert.equal(budget.due(50), true);
        assert.equal(budget.reached(50, 20), false);
        // 80 tokens to go at two characters per token at most: next check 40 characters later.
        assert.equal(budget.due(89), false);
        assert.equal(budget.due(90), true);
        assert.equal(budget.reached(300, 100), true);
    });

    it('checks at least every character near the limit', () => {
        const budget = new TokenBudget(10);
        assert.equal(budget.reached(30, 9), false);
        assert.equal(budget.due(31), true);
    });
});
