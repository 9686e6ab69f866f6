import type { JsonRpcMessage, RequestId } from './messages.js';

export interface SendOptions {
    /** The incoming request this message belongs to (its progress, its input requests, its response). */
    relatedRequestId?: RequestId;
}

/**
 * One way to and from the peer: the stdio pipe, an HTTP POST's response stream, the HTTP GET
 * stream. Shaped like the MCP SDK's Transport, except that `send` is synchronous and says whether
 * the message went out: the connection delivers a request to the client exactly once, on the
 * first transport that takes it, and keeps it queued while none does.
 */
export interface Transport {
    /** Writes one message; false when this transport is closed or cannot carry it. */
    send(message: JsonRpcMessage, options?: SendOptions): boolean;
    /** Ends the transport; what it still holds is written first. */
    close(): void;
    /** Writes out at once what a coalescing transport still holds. */
    flush?(): void;
    /**
     * Ends the connection under this stream without ending the stream, for the client to resume it
     * (MCP 2025-11-25 over HTTP: SSE polling); false, or absent, where it cannot be resumed.
     */
    closeConnection?(): boolean;
    /**
     * Messages the peer sent on this transport, already decoded and validated (see decodeFrame).
     * A POST response stream has none: the HTTP server hands each POSTed message to its session.
     */
    onmessage?: (message: JsonRpcMessage) => void;
    /** The peer went away (the pipe ended, the HTTP connection closed before the response). */
    onclose?: () => void;
    /** Something failed out of band; not necessarily fatal. */
    onerror?: (error: unknown) => void;
}
