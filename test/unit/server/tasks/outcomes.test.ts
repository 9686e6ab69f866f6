import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resultText, STATUS_TEXT_MAX } from '../../../../server/src/tasks/outcomes.js';
import { textResult } from '../../../../server/src/tools/types.js';

describe('resultText (a failed task\'s statusMessage)', () => {
    it('is the result\'s text when it is short', () => {
        assert.equal(resultText(textResult('exit 1: npm test', true)), 'exit 1: npm test');
        assert.equal(resultText({ content: [{ type: 'image', data: '', mimeType: 'image/png' }], isError: true }), 'The tool reported an error');
    });

    it('cuts a long text to STATUS_TEXT_MAX characters, saying how much more the result holds', () => {
        const long = 'x'.repeat(126_000);
        const text = resultText(textResult(long, true));
        assert.ok(text.length <= STATUS_TEXT_MAX, `${text.length} characters`);
        const more = Number(/… \((\d+) more characters in the task's result\)$/.exec(text)?.[1]);
        assert.equal(text.indexOf('…') + more, long.length, 'what is shown and what is left make the whole');
    });

    it('never ends the cut on half a surrogate pair', () => {
        const text = resultText(textResult('😀'.repeat(5000), true));
        assert.doesNotMatch(text, /[\uD800-\uDBFF]…/);
    });
});
