import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorResponseFor, sendResponse } from '../rpc/answer.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import { errorResponse, resultResponse, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse } from '../rpc/messages.js';
import { RequestAbort } from '../rpc/requestAbort.js';
import type { ToolCatalog } from '../mcp/context.js';
import { requestedVersion, STATELESS_VERSION } from '../mcp/revision.js';
import { unsupportedVersion, type Envelope } from '../mcp/stateless/envelope.js';
import { serveStateless } from '../mcp/stateless/front.js';
import type { TasksServer } from '../server.js';
import type { ClientIdentity } from '../tasks/hub.js';
import type { Caller } from './httpAuth.js';
import { replyMessage } from './httpReply.js';
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
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Visible ASCII, space and tab: what a header value may hold unencoded (SEP-2243). */
const HEADER_SAFE = /^[\x20-\x7e\t]*$/;

/** A header value as SEP-2243 encodes it: plain, or Base64 between the sentinel markers; undefined when malformed. */
function decodeHeader(value: string): string | undefined {
    if (!HEADER_SAFE.test(value)) {
        return undefined;
    }
    const match = SENTINEL.exec(value);
    if (!match) {
        return value;
    }
    const encoded = match[1] ?? '';
    return encoded.length % 4 === 0 && BASE64.test(encoded) ? Buffer.from(encoded, 'base64').toString('utf8') : undefined;
}

/** The arguments a tool's input schema marks with `x-mcp-header`, and the header each goes in. */
const headerParamsByListing = new WeakMap<readonly Record<string, unknown>[], Map<string, [string, string][]>>();
function headerParamsOf(tools: ToolCatalog, toolName: string): [string, string][] | undefined {
    const listing = tools.list();
    let byTool = headerParamsByListing.get(listing);
    if (!byTool) {
        byTool = new Map();
        for (const tool of listing) {
            const properties = (tool.inputSchema as { properties?: Record<string, Record<string, unknown>> } | undefined)?.properties ?? {};
            const params = Object.entries(properties)
                .filter(([, schema]) => typeof schema?.['x-mcp-header'] === 'string')
                .map(([prop, schema]): [string, string] => [prop, schema['x-mcp-header'] as string]);
            if (params.length > 0) {
                byTool.set(tool.name as string, params);
            }
        }
        headerParamsByListing.set(listing, byTool);
    }
    return byTool.get(toolName);
}

function sameValue(header: string, value: unknown): boolean {
    return typeof value === 'number' ? header.trim() !== '' && Number(header) === value : header === String(value);
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
export function checkHeaders(req: IncomingMessage, request: JsonRpcRequest, envelope: Envelope, tools: ToolCatalog): void {
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
    const params = request.method === 'tools/call' && typeof bodyName === 'string' ? headerParamsOf(tools, bodyName) : undefined;
    if (params) {
        const args = request.params?.arguments as Record<string, unknown> | undefined;
        for (const [prop, headerName] of params) {
            const value = args?.[prop];
            if (value === undefined || value === null) {
                continue;
            }
            const raw = header(req, `mcp-param-${headerName.toLowerCase()}`);
            if (raw === undefined) {
                throw mismatch(`the Mcp-Param-${headerName} header is required when arguments.${prop} is given`);
            }
            const decoded = decodeHeader(raw);
            if (decoded === undefined) {
                throw mismatch(`Mcp-Param-${headerName} header value is not valid (bad characters or Base64)`);
            }
            if (!sameValue(decoded, value)) {
                throw mismatch(`Mcp-Param-${headerName} header value does not match arguments.${prop}`);
            }
        }
    }
}

/**
 * The HTTP side of 2026-07-28 (SEP-2575): every POST stands alone, served with the identity of its
 * credential (its bearer token), so a client's tasks are found again by whatever request, replica
 * or connection comes next. Without tokens every caller is the same anonymous one: its tasks are
 * reached by id only and never listed (ClientIdentity.anonymous).
 */
export class StatelessHttp {
    private readonly identities = new Map<string, ClientIdentity>();

    constructor(private readonly core: TasksServer) {}

    /** The identity of a credential: the same binding key as `--bind principal` sessions use. */
    identityOf(caller: Caller): ClientIdentity {
        let identity = this.identities.get(caller.principal);
        if (!identity) {
            identity = { clientKey: caller.isOwner ? 'owner' : `principal:${caller.principal}`, isOwner: caller.isOwner, ...(caller.anonymous ? { anonymous: true } : {}) };
            this.identities.set(caller.principal, identity);
        }
        return identity;
    }

    receive(req: IncomingMessage, res: ServerResponse, caller: Caller, message: JsonRpcMessage, acceptsJson: boolean, acceptsSse: boolean): void {
        if (!('method' in message) || !('id' in message)) {
            // No client notification is defined over HTTP in this revision (cancelling = closing the
            // stream), so one is accepted and dropped; but a version this server does not speak is
            // refused on every POST, a notification's too (400 and -32022, as the spec says).
            const requested = 'method' in message ? requestedVersion(message.method, message.params, header(req, 'mcp-protocol-version')) : undefined;
            if (requested !== undefined && requested !== STATELESS_VERSION) {
                replyMessage(res, 400, errorResponse(null, unsupportedVersion(requested).toJSON()));
                return;
            }
            res.writeHead(202).end();
            return;
        }
        const request = message;
        const exchange = new PostExchange(res, NO_SESSION, request.id, acceptsSse, acceptsJson);
        const abort = new RequestAbort(exchange);
        exchange.onclose = () => abort.abort(new RpcError(ErrorCodes.ConnectionClosed, 'The client closed the HTTP connection'));
        void this.answer(req, request, exchange, abort, this.identityOf(caller));
    }

    /** Answered as a session's request is (errorResponseFor, sendResponse), with the identity of the credential and the headers checked. */
    private async answer(req: IncomingMessage, request: JsonRpcRequest, exchange: PostExchange, abort: RequestAbort, identity: ClientIdentity): Promise<void> {
        const { services, log } = this.core;
        let response: JsonRpcResponse;
        try {
            response = resultResponse(request.id, await serveStateless(services, identity, request, exchange, abort, envelope => checkHeaders(req, request, envelope, services.tools)));
        } catch (err) {
            response = errorResponseFor(request, err, log, 'http');
        }
        sendResponse(exchange, response, log, 'http');
    }
}
