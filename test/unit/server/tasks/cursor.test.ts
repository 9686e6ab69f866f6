import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeCursor, encodeCursor } from '../../../../server/src/tasks/cursor.js';
import { assertRpcThrows } from '../../../support/rpcThrows.js';

describe('cursors', () => {
    it('round-trip their sequence number and reject ones not issued', () => {
        for (const seq of [0, 1, 99, 123_456_789]) {
            assert.equal(decodeCursor(encodeCursor(seq)), seq);
        }
        for (const bad of ['', 'garbage', '42', 'c1.', `c1.${Buffer.from('-1').toString('base64url')}`, `c1.${Buffer.from('1e3').toString('base64url')}`, `c2.${Buffer.from('1').toString('base64url')}`]) {
            assertRpcThrows(() => decodeCursor(bad), -32602, /Invalid cursor/);
        }
    });
});
