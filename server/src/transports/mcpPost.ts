import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ToolCatalog } from '../mcp/context.js';
import type { HttpPost } from '../mcp/dispatch.js';
import type { Envelope } from '../mcp/rev2026/envelope.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import { errorResponse, type JsonRpcMessage, type JsonRpcRequest, type RequestId } from '../rpc/messages.js';
import { RequestAbort } from '../rpc/requestAbort.js';
import type { Transport } from '../rpc/transport.js';
import type { ClientIdentity } from '../tasks/hub.js';
import type { Caller } from './httpAuth.js';
import { replyMessage } from './httpReply.js';
import { SESSION_HEADER, type HttpSession, type HttpSessions } from './httpSessions.js';
import { checkHeaders } from './mcpHeaders.js';
import { NO_SESSION, PostExchange } from './postExchange.js';

/** What a POST needs of its endpoint (HttpTransportServer). */
export interface PostEndpoint {
    readonly sessions: HttpSessions;
    /** The session a request names, checked against its caller and protocol version; undefined once refused. */
    lookup(req: IncomingMessage, res: ServerResponse, caller: Caller): HttpSession | undefined;
}

/**
 * One POSTed MCP message, as the HTTP transport hands it to dispatch (mcp/dispatch.ts): what its
 * headers say about its revision, and how it is answered, as a session's message or alone. What is
 * HTTP stays here (the Mcp-Session-Id, status codes, the response stream); which revision answers
 * is dispatch's.
 */
export class McpPost implements HttpPost {
    readonly inSession: boolean;
    readonly headerVersion: string | undefined;

    constructor(
        private readonly endpoint: PostEndpoint,
        private readonly req: IncomingMessage,
        private readonly res: ServerResponse,
        private readonly caller: Caller,
        private readonly acceptsJson: boolean,
        private readonly acceptsSse: boolean,
    ) {
        this.inSession = req.headers[SESSION_HEADER] !== undefined;
        this.headerVersion = req.headers['mcp-protocol-version'] as string | undefined;
    }

    /** 2025-11-25: initialize opens a session; anything else needs one. */
    toSession(message: JsonRpcMessage): void {
        const request = 'method' in message && 'id' in message ? message : undefined;
        const initialize = request?.method === 'initialize';
        const { sessions } = this.endpoint;
        const entry = initialize ? sessions.begin(this.caller) : this.endpoint.lookup(this.req, this.res, this.caller);
        if (!entry) {
            return;
        }
        if ('refused' in entry) {
            // Over the credential's session limits (SessionLimiter): no session, and words on what to do.
            const headers: Record<string, string> = entry.retryAfterSeconds ? { 'retry-after': String(entry.retryAfterSeconds) } : {};
            replyMessage(this.res, 429, errorResponse(request?.id ?? null, { code: ErrorCodes.LimitExceeded, message: entry.message, data: entry.data }), headers);
            return;
        }
        const { rpc } = entry.session;
        if (request === undefined) {
            if ('method' in message) {
                rpc.handleNotification(message);
            } else {
                rpc.handleResponse(message);
            }
            this.res.writeHead(202).end();
            return;
        }
        const exchange = new PostExchange(this.res, entry, request.id, this.acceptsSse, this.acceptsJson);
        exchange.onclose = () => rpc.abortRequest(request.id, exchange, 'The client closed the HTTP connection');
        if (initialize) {
            // No session without a successful initialize: a failed one is ended, and named to no one.
            void rpc.answer(request, exchange).then(() => sessions.discard(entry));
        } else {
            void rpc.answer(request, exchange);
        }
    }

    end(status: 202 | 400, response?: JsonRpcMessage): void {
        if (response === undefined) {
            this.res.writeHead(status).end();
        } else {
            replyMessage(this.res, status, response);
        }
    }

    /** A sessionless request's own response stream: no Mcp-Session-Id, and closing it aborts the request. */
    answerOn(id: RequestId): { reply: Transport; abort: RequestAbort } {
        const exchange = new PostExchange(this.res, NO_SESSION, id, this.acceptsSse, this.acceptsJson);
        const abort = new RequestAbort(exchange);
        exchange.onclose = () => abort.abort(new RpcError(ErrorCodes.ConnectionClosed, 'The client closed the HTTP connection'));
        return { reply: exchange, abort };
    }

    identity(): ClientIdentity {
        return this.endpoint.sessions.identityOf(this.caller);
    }

    checkHeaders(request: JsonRpcRequest, envelope: Envelope, tools: ToolCatalog): void {
        checkHeaders(this.req, request, envelope, tools);
    }
}
