import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify } from '../../../../server/src/rpc/messages.js';

describe('classify', () => {
    it('recognises requests, notifications and responses', () => {
        assert.equal(classify({ jsonrpc: '2.0', id: 1, method: 'ping' }).kind, 'request');
        assert.equal(classify({ jsonrpc: '2.0', id: 'abc', method: 'tools/call', params: {} }).kind, 'request');
        assert.equal(classify({ jsonrpc: '2.0', method: 'notifications/initialized' }).kind, 'notification');
        assert.equal(classify({ jsonrpc: '2.0', id: 0, result: {} }).kind, 'response');
        assert.equal(classify({ jsonrpc: '2.0', id: 5, error: { code: -1, message: 'x' } }).kind, 'response');
    });

    it('says why anything else is invalid, keeping a usable id', () => {
        const cases: [unknown, RegExp, unknown][] = [
            [[{ jsonrpc: '2.0', id: 1, method: 'ping' }], /Batch/, null],
            ['ping', /JSON object/, null],
            [null, /JSON object/, null],
            [{ jsonrpc: '1.0', id: 3, method: 'ping' }, /jsonrpc must be "2\.0"/, 3],
            [{ jsonrpc: '2.0', id: 4, method: '' }, /method must be a non-empty string/, 4],
            [{ jsonrpc: '2.0', id: 5, method: 7 }, /method must be a non-empty string/, 5],
            [{ jsonrpc: '2.0', id: 6, method: 'ping', params: [] }, /params must be an object/, 6],
            [{ jsonrpc: '2.0', id: 7, method: 'ping', params: null }, /params must be an object/, 7],
            [{ jsonrpc: '2.0', id: null, method: 'ping' }, /id must be a string or a number/, null],
            [{ jsonrpc: '2.0', id: Number.NaN, method: 'ping' }, /id must be a string or a number/, null],
            [{ jsonrpc: '2.0', result: {} }, /response id/, null],
            [{ jsonrpc: '2.0', id: 8 }, /Not a request, notification or response/, 8],
        ];
        for (const [value, reason, id] of cases) {
            const classified = classify(value);
            assert.equal(classified.kind, 'invalid', JSON.stringify(value));
            if (classified.kind === 'invalid') {
                assert.match(classified.reason, reason);
                assert.equal(classified.id, id, JSON.stringify(value));
            }
        }
    });
});
