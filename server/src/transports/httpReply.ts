import type { ServerResponse } from 'node:http';
import type { Clock } from '../util/clock.js';
import { errorResponse, type JsonRpcMessage, type RequestId } from '../rpc/messages.js';

/** Answers an HTTP request with a JSON-RPC error body (or just ends it when the headers are out). */
export function replyError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}, id: RequestId | null = null): void {
    replyMessage(res, status, errorResponse(id, { code, message }), headers);
}

/** Answers an HTTP request with one JSON-RPC message as its body (or just ends it when the headers are out). */
export function replyMessage(res: ServerResponse, status: number, message: JsonRpcMessage, headers: Record<string, string> = {}): void {
    if (res.headersSent) {
        res.end();
        return;
    }
    const body = JSON.stringify(message);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers });
    res.end(body);
}

/** Resolves once every response in `open` has finished (or closed), or after `timeoutMs`. */
export function allFinished(open: Set<ServerResponse>, timeoutMs: number, clock: Clock): Promise<void> {
    return new Promise(resolve => {
        const deadline = clock.now() + timeoutMs;
        const check = () => {
            if (open.size === 0 || clock.now() >= deadline) {
                resolve();
            } else {
                clock.setTimeout(check, 10, undefined, true);
            }
        };
        check();
    });
}
