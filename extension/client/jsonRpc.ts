// The hand-written guards that check what the server sends; the message shapes are the contract's.
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '@mcp-tasks/server/contract';

export type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '@mcp-tasks/server/contract';
export type Params = Record<string, unknown>;

export type Incoming =
    | { kind: 'request'; message: JsonRpcRequest }
    | { kind: 'notification'; message: JsonRpcNotification }
    | { kind: 'response'; message: JsonRpcResponse & { id: RequestId } }
    | { kind: 'invalid'; reason: string };

export function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is RequestId {
    return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

/** Sorts one decoded message from the server; anything that is not JSON-RPC 2.0 is 'invalid'. */
export function classify(value: unknown): Incoming {
    if (!isRecord(value) || value.jsonrpc !== '2.0') {
        return { kind: 'invalid', reason: 'not a JSON-RPC 2.0 message' };
    }
    if (value.params !== undefined && !isRecord(value.params)) {
        return { kind: 'invalid', reason: 'params is not an object' };
    }
    if (typeof value.method === 'string') {
        return isId(value.id) ? { kind: 'request', message: value as unknown as JsonRpcRequest } : { kind: 'notification', message: value as unknown as JsonRpcNotification };
    }
    if (isId(value.id) && ('result' in value || isRecord(value.error))) {
        return { kind: 'response', message: value as unknown as JsonRpcResponse & { id: RequestId } };
    }
    return { kind: 'invalid', reason: 'neither a request, a notification nor a response' };
}

/** The error object of a response, reduced to a numeric code and a string message. */
export function errorOf(response: JsonRpcResponse): { code: number; message: string; data?: unknown } | undefined {
    const error = response.error as unknown;
    if (!isRecord(error)) {
        return undefined;
    }
    return {
        code: typeof error.code === 'number' ? error.code : -32603,
        message: typeof error.message === 'string' ? error.message : 'The server answered with a malformed error object',
        data: error.data,
    };
}
