import assert from 'node:assert/strict';
import { RpcError } from '../../server/src/rpc/errors.js';

/** Asserts that `fn` throws the server's RpcError with this JSON-RPC code (and a message matching, if given). */
export function assertRpcThrows(fn: () => unknown, code: number, message?: RegExp): void {
    assert.throws(fn, (err: unknown) => err instanceof RpcError && err.code === code && (!message || message.test(err.message)));
}
