import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage } from '../log.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import { errorResponse, resultResponse, type JsonRpcMessage, type JsonRpcRequest } from '../rpc/messages.js';
import { RequestAbort } from '../rpc/requestAbort.js';
import type { Envelope } from '../mcp/v2/envelope.js';
import { serveStateless } from '../mcp/v2/serve.js';
import type { TasksServer } from '../server.js';
import type { ClientIdentity } from '../tasks/hub.js';
import type { Caller } from './httpAuth.js';
import { PostExchange, type ExchangeOwner } from './sse.js';

/** 2026-07-28 over HTTP: which errors are the request's fault (400) and which name a method this revision lacks (404). */
const STATUS_BY_CODE = new Map<number, number>([
    [ErrorCodes.MethodNotFound, 404],
    [ErrorCodes.InvalidRequest, 400],
    [ErrorCodes.InvalidParams, 400],
    [ErrorCodes.HeaderMismatch, 400],
    [ErrorCodes.MissingRequiredClientCapability, 400],
    [ErrorCodes.UnsupportedProtocolVersion, 400],
]);

/** A stateless request's response stream has no session: no Mcp-Session-Id, and an error's own status. */
const NO_SESSION: ExchangeOwner = {
    sessionId: undefined,
    responding: () => undefined,
    statusOf: response => ('error' in response && response.error ? (STATUS_BY_CODE.get(response.error.code) ?? 200) : 200),
};

const SENTINEL = /^=\?base64\?(.*)\?=$/;

/** A header value as SEP-2243 encodes it: plain, or Base64 between the sentinel markers. */
function decodeHeader(value: string): string {
    const match = SENTINEL.exec(value);
    return match ? Buffer.from(match[1] ?? '', 'base64').toString('utf8') : value;
}

/** Where `Mcp-Name` comes from in the body (SEP-2243, and SEP-2663 for the task methods). */
function nameOf(request: JsonRpcRequest): unknown {
    switch (request.method) {
        case 'tools/call':
        case 'prompts/get':
            return request.params?.name;
        case 'resources/read':
            return request.params?.uri;
        case 'tasks/get':
        case 'tasks/update':
        case 'tasks/cancel':
            return request.params?.taskId;
        default:
            return undefined;
    }
}

function header(req: IncomingMessage, name: string): string | undefined {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
}

function mismatch(message: string): RpcError {
    return new RpcError(ErrorCodes.HeaderMismatch, `Header mismatch: ${message}`);
}

/** The headers a 2026-07-28 POST must mirror from its body: present, and equal to it (-32020). */
export function checkHeaders(req: IncomingMessage, request: JsonRpcRequest, envelope: Envelope): void {
    const version = header(req, 'mcp-protocol-version');
    if (version !== envelope.version) {
        throw mismatch(version === undefined ? 'the MCP-Protocol-Version header is required' : `MCP-Protocol-Version header value '${version}' does not match _meta value '${envelope.version}'`);
    }
    const method = header(req, 'mcp-method');
    if (method !== request.method) {
        throw mismatch(method === undefined ? 'the Mcp-Method header is required' : `Mcp-Method header value '${method}' does not match body value '${request.method}'`);
    }
    const bodyName = nameOf(request);
    if (typeof bodyName === 'string') {
        const name = header(req, 'mcp-name');
        if (name === undefined) {
            throw mismatch(`the Mcp-Name header is required for ${request.method}`);
        }
        if (decodeHeader(name) !== bodyName) {
            throw mismatch(`Mcp-Name header value '${name}' does not match body value '${bodyName}'`);
        }
    }
}

/**
 * The HTTP side of 2026-07-28 (SEP-2575): every POST stands alone, served with the identity of its
 * credential (its bearer token; one shared identity when the server has no tokens), so a client's
 * tasks are found again by whatever request, replica or connection comes next.
 */
export class StatelessHttp {
    private readonly identities = new Map<string, ClientIdentity>();

    constructor(private readonly core: TasksServer) {}

    /** The identity of a credential: the same binding key as `--bind principal` sessions use. */
    identityOf(caller: Caller): ClientIdentity {
        let identity = this.identities.get(caller.principal);
        if (!identity) {
            identity = { clientKey: caller.isOwner ? 'owner' : `principal:${caller.principal}`, isOwner: caller.isOwner };
            this.identities.set(caller.principal, identity);
        }
        return identity;
    }

    receive(req: IncomingMessage, res: ServerResponse, caller: Caller, message: JsonRpcMessage, acceptsJson: boolean, acceptsSse: boolean): void {
        if (!('method' in message) || !('id' in message)) {
            // No client notification is defined over HTTP in this revision (cancelling = closing the stream).
            res.writeHead(202).end();
            return;
        }
        const request = message;
        const exchange = new PostExchange(res, NO_SESSION, request.id, acceptsSse, acceptsJson);
        const abort = new RequestAbort(exchange);
        exchange.onclose = () => abort.abort(new RpcError(ErrorCodes.ConnectionClosed, 'The client closed the HTTP connection'));
        void this.answer(req, request, exchange, abort, this.identityOf(caller));
    }

    private async answer(req: IncomingMessage, request: JsonRpcRequest, exchange: PostExchange, abort: RequestAbort, identity: ClientIdentity): Promise<void> {
        const { log } = this.core;
        let response;
        try {
            response = resultResponse(request.id, await serveStateless(this.core.services, identity, request, exchange, abort, envelope => checkHeaders(req, request, envelope)));
        } catch (err) {
            if (err instanceof RpcError) {
                response = errorResponse(request.id, err.toJSON());
            } else {
                log.error(`[http] ${request.method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
                response = errorResponse(request.id, { code: ErrorCodes.InternalError, message: `Internal error: ${errorMessage(err)}` });
            }
        }
        try {
            exchange.send(response);
        } catch (err) {
            log.error(`[http] cannot send the response to ${String(request.id)}: ${errorMessage(err)}`);
            exchange.send(errorResponse(request.id, { code: ErrorCodes.InternalError, message: 'Internal error: the response could not be sent' }));
        }
    }
}
