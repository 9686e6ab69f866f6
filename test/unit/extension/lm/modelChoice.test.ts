import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseModel, type ModelInfo } from '../../../../extension/lm/modelChoice.js';

const model = (id: string, family: string, name = family, vendor = 'copilot'): ModelInfo => ({ id, name, family, vendor });

const MINI = model('gpt-4o-mini-2024', 'gpt-4o-mini', 'GPT-4o mini');
const GPT4O = model('gpt-4o-2024', 'gpt-4o', 'GPT-4o');
const SONNET = model('claude-3.5-sonnet', 'claude-3.5-sonnet', 'Claude 3.5 Sonnet');
const OPUS = model('vendor/opus-id', 'claude-opus', 'Claude Opus 4');
const MODELS = [MINI, GPT4O, SONNET, OPUS];

describe('chooseModel', () => {
    it('returns undefined when there are no models', () => {
        assert.equal(chooseModel([], [{ name: 'gpt-4o' }], 'gpt-4o'), undefined);
    });

    it('falls back to the first model without hints or preference', () => {
        assert.equal(chooseModel(MODELS, undefined), MINI);
        assert.equal(chooseModel(MODELS, []), MINI);
        assert.equal(chooseModel(MODELS, [{}, { name: '' }, { name: '  ' }]), MINI);
    });

    it('prefers an exact family match over a substring match wherever it is in the list', () => {
        assert.equal(chooseModel(MODELS, [{ name: 'gpt-4o' }]), GPT4O);
    });

    it('matches case-insensitively', () => {
        assert.equal(chooseModel(MODELS, [{ name: 'GPT-4O' }]), GPT4O);
        assert.equal(chooseModel(MODELS, [{ name: 'claude 3.5 SONNET' }]), SONNET);
    });

    it('matches family, then name, then id', () => {
        assert.equal(chooseModel(MODELS, [{ name: 'Claude Opus 4' }]), OPUS, 'exact name');
        assert.equal(chooseModel(MODELS, [{ name: 'vendor/opus-id' }]), OPUS, 'exact id');
        // "opus" is a substring of OPUS's family, so the family wins over the name of any other model.
        assert.equal(chooseModel(MODELS, [{ name: 'opus' }]), OPUS);
        assert.equal(chooseModel(MODELS, [{ name: '2024' }]), MINI, 'substring of an id, first in list order');
    });

    it('takes exact matches on any field before substrings on any field', () => {
        const a = model('a-id', 'sonnet-family', 'Other');
        const b = model('b-id', 'b-family', 'sonnet');
        assert.equal(chooseModel([a, b], [{ name: 'sonnet' }]), b, 'exact name beats substring family');
    });

    it('uses substring matches for partial hints, as the spec intends ("claude" matches any Claude)', () => {
        assert.equal(chooseModel(MODELS, [{ name: 'claude' }]), SONNET);
        assert.equal(chooseModel(MODELS, [{ name: 'sonnet' }]), SONNET);
    });

    it('tries hints in order and takes the first that matches anything', () => {
        assert.equal(chooseModel(MODELS, [{ name: 'gemini' }, { name: 'claude-opus' }, { name: 'gpt-4o' }]), OPUS);
    });

    it('uses the configured preference when no hint matches, with the same matching', () => {
        assert.equal(chooseModel(MODELS, [{ name: 'gemini' }], 'Claude 3.5 Sonnet'), SONNET);
        assert.equal(chooseModel(MODELS, undefined, 'opus'), OPUS);
        assert.equal(chooseModel(MODELS, [{ name: 'gpt-4o' }], 'opus'), GPT4O, 'a matching hint beats the preference');
    });

    it('falls back to the first model when neither hints nor preference match', () => {
        assert.equal(chooseModel(MODELS, [{ name: 'gemini' }], 'llama'), MINI);
    });

    it('returns the caller\'s own objects', () => {
        const extended = MODELS.map(m => ({ ...m, extra: true }));
        assert.equal(chooseModel(extended, [{ name: 'gpt-4o' }])?.extra, true);
    });
});
