/** JSON-RPC error codes used by this server (JSON-RPC 2.0 and the MCP spec). */
export const ErrorCodes = {
    ParseError: -32700,
    InvalidRequest: -32600,
    MethodNotFound: -32601,
    InvalidParams: -32602,
    InternalError: -32603,
    /** Server-defined: a per-client limit (live tasks) was reached. */
    LimitExceeded: -32000,
    /** Server-defined: the store (e.g. Redis) is unreachable right now. */
    StoreUnavailable: -32001,
    /** Server-defined: a request to the client timed out or its connection closed. */
    ConnectionClosed: -32002,
    /** 2026-07-28: an HTTP header disagrees with the body it mirrors, or a required one is missing. */
    HeaderMismatch: -32020,
    /** 2026-07-28: serving the request needs a client capability the request did not declare. */
    MissingRequiredClientCapability: -32021,
    /** 2026-07-28: the request's protocol version is not one this server speaks. */
    UnsupportedProtocolVersion: -32022,
} as const;

/** An error that travels to the peer as a JSON-RPC error object. */
export class RpcError extends Error {
    constructor(
        readonly code: number,
        message: string,
        readonly data?: unknown,
    ) {
        super(message);
        this.name = 'RpcError';
    }

    toJSON(): { code: number; message: string; data?: unknown } {
        return this.data === undefined
            ? { code: this.code, message: this.message }
            : { code: this.code, message: this.message, data: this.data };
    }
}

export function invalidParams(message: string, data?: unknown): RpcError {
    return new RpcError(ErrorCodes.InvalidParams, message, data);
}

export function methodNotFound(message: string): RpcError {
    return new RpcError(ErrorCodes.MethodNotFound, message);
}
