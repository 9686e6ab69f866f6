// The error a JSON-RPC peer sends or receives: a code from the spec and a message. Thrown by the
// owner connection for error responses and by our request handlers (sampling) to answer with one.
import { JsonRpcErrorCodes } from '@mcp-tasks/server/contract';

export const RpcErrorCodes = {
    ...JsonRpcErrorCodes,
    /** Client-side: the connection closed before the answer came (the MCP SDK's number). */
    ConnectionClosed: -32000,
    /** Client-side: no answer within the request's timeout (the MCP SDK's number). */
    RequestTimeout: -32001,
    /** The MCP spec's example code for "user rejected sampling request". */
    UserRejected: -1,
} as const;

export class RpcError extends Error {
    constructor(
        readonly code: number,
        /** The peer's own text; `message` prefixes the code, as the MCP SDK's McpError did on the wire. */
        readonly reason: string,
        readonly data?: unknown,
    ) {
        super(`MCP error ${code}: ${reason}`);
        this.name = 'RpcError';
    }
}

/** Why the connection or request is gone, with the code the SDK used for it. */
export function connectionClosed(reason = 'Connection closed'): RpcError {
    return new RpcError(RpcErrorCodes.ConnectionClosed, reason);
}
