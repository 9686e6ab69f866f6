// The message shapes are the contract's (the extension reads the same ones); validated by hand here
// because this is the hot path.
import type { JsonRpcErrorObject, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '../contract.js';
import { ErrorCodes } from './errors.js';
import { overLimits } from './nesting.js';

export type { JsonRpcErrorObject, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '../contract.js';

export type Classified =
    | { kind: 'request'; message: JsonRpcRequest }
    | { kind: 'notification'; message: JsonRpcNotification }
    | { kind: 'response'; message: JsonRpcResponse }
    /** `code`: -32602 for params past the limits (nesting.ts), else -32600 (Invalid Request). */
    | { kind: 'invalid'; id: RequestId | null; reason: string; code?: number };

function isId(value: unknown): value is RequestId {
    return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** Sorts a parsed JSON value into a JSON-RPC message kind, or says why it is none. */
export function classify(value: unknown): Classified {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return { kind: 'invalid', id: null, reason: Array.isArray(value) ? 'Batch messages are not supported' : 'Message must be a JSON object' };
    }
    const msg = value as Record<string, unknown>;
    const id = isId(msg.id) ? msg.id : null;
    if (msg.jsonrpc !== '2.0') {
        return { kind: 'invalid', id, reason: 'jsonrpc must be "2.0"' };
    }
    if ('method' in msg) {
        if (typeof msg.method !== 'string' || msg.method.length === 0) {
            return { kind: 'invalid', id, reason: 'method must be a non-empty string' };
        }
        if (msg.params !== undefined && (typeof msg.params !== 'object' || msg.params === null || Array.isArray(msg.params))) {
            return { kind: 'invalid', id, reason: 'params must be an object' };
        }
        const over = msg.params === undefined ? undefined : overLimits(msg.params, true);
        if (over !== undefined) {
            return { kind: 'invalid', id, reason: over, code: ErrorCodes.InvalidParams };
        }
        if (!('id' in msg)) {
            return { kind: 'notification', message: msg as unknown as JsonRpcNotification };
        }
        if (!isId(msg.id)) {
            return { kind: 'invalid', id: null, reason: 'id must be a string or a number' };
        }
        return { kind: 'request', message: msg as unknown as JsonRpcRequest };
    }
    if ('result' in msg || 'error' in msg) {
        if (!isId(msg.id)) {
            return { kind: 'invalid', id: null, reason: 'response id must be a string or a number' };
        }
        const over = overLimits(msg.result, false) ?? overLimits(msg.error, false);
        if (over !== undefined) {
            // The request it answers fails with this error instead of waiting for another answer.
            return { kind: 'response', message: errorResponse(msg.id, { code: ErrorCodes.InvalidParams, message: `Invalid params: the client's answer was refused: ${over}` }) };
        }
        return { kind: 'response', message: msg as unknown as JsonRpcResponse };
    }
    return { kind: 'invalid', id, reason: 'Not a request, notification or response' };
}

/** The error a transport answers an invalid message with. */
export function invalidMessageError(invalid: Extract<Classified, { kind: 'invalid' }>): JsonRpcErrorObject {
    const code = invalid.code ?? ErrorCodes.InvalidRequest;
    return { code, message: `${code === ErrorCodes.InvalidParams ? 'Invalid params' : 'Invalid Request'}: ${invalid.reason}` };
}

export function errorResponse(id: RequestId | null, error: JsonRpcErrorObject): JsonRpcResponse {
    return { jsonrpc: '2.0', id, error };
}

export function resultResponse(id: RequestId, result: Record<string, unknown>): JsonRpcResponse {
    return { jsonrpc: '2.0', id, result };
}

export type Decoded = Classified | { kind: 'unparsable' };

const UNPARSABLE: Decoded = { kind: 'unparsable' };

/** Parses and classifies one frame (a stdio line, a POST body); each transport words its own errors. */
export function decodeFrame(text: string): Decoded {
    let value: unknown;
    try {
        value = JSON.parse(text);
    } catch {
        return UNPARSABLE;
    }
    return classify(value);
}
