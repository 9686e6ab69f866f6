import { errorMessage, type Logger } from '../util/log.js';
import { ErrorCodes, RpcError } from './errors.js';
import { errorResponse, resultResponse, type JsonRpcRequest, type JsonRpcResponse } from './messages.js';
import type { RequestAbort } from './requestAbort.js';
import type { Transport } from './transport.js';

/** Answers one request: what the result is, or an RpcError to send back. */
export type RequestDispatcher = (request: JsonRpcRequest, reply: Transport, abort: RequestAbort) => Promise<Record<string, unknown>> | Record<string, unknown>;

/**
 * The error response for what a request's handler threw, whatever the transport: an RpcError as
 * it is; anything else logged (with `tag`) and sent as -32603.
 */
export function errorResponseFor(request: JsonRpcRequest, err: unknown, log: Logger, tag: string): JsonRpcResponse {
    if (err instanceof RpcError) {
        return errorResponse(request.id, err.toJSON());
    }
    log.error(`[${tag}] ${request.method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return errorResponse(request.id, { code: ErrorCodes.InternalError, message: `Internal error: ${errorMessage(err)}` });
}

/** Sends a response; one JSON cannot encode (a BigInt, a cycle) goes as -32603, so the peer still gets an answer. */
export function sendResponse(reply: Transport, response: JsonRpcResponse, log: Logger, tag: string): void {
    const id = response.id;
    try {
        reply.send(response, { relatedRequestId: id ?? undefined });
    } catch (err) {
        log.error(`[${tag}] cannot send the response to ${String(id)}: ${errorMessage(err)}`);
        reply.send(errorResponse(id, { code: ErrorCodes.InternalError, message: 'Internal error: the response could not be sent' }), { relatedRequestId: id ?? undefined });
    }
}

/** The response to one request: the dispatcher's result, or the error response for what it threw. Never throws. */
export async function responseTo(request: JsonRpcRequest, reply: Transport, abort: RequestAbort, dispatch: RequestDispatcher, log: Logger, tag: string): Promise<JsonRpcResponse> {
    try {
        return resultResponse(request.id, await dispatch(request, reply, abort));
    } catch (err) {
        return errorResponseFor(request, err, log, tag);
    }
}

/**
 * Answers one request on `reply`, whichever revision serves it and whatever carried it (a
 * session's RpcConnection, a sessionless 2026-07-28 POST): sends its response, then runs what
 * waited for that (RequestAbort.afterResponse). Never throws.
 */
export async function answerRequest(request: JsonRpcRequest, reply: Transport, abort: RequestAbort, dispatch: RequestDispatcher, log: Logger, tag: string): Promise<void> {
    // responseTo's work written out: one promise fewer per request on every transport's hot path.
    let response: JsonRpcResponse;
    try {
        response = resultResponse(request.id, await dispatch(request, reply, abort));
    } catch (err) {
        response = errorResponseFor(request, err, log, tag);
    }
    try {
        sendResponse(reply, response, log, tag);
    } finally {
        abort.responded();
    }
}
