/** The 2026-07-28 HTTP headers (SEP-2243): which a POST must carry, and how they must mirror its body. */
import type { IncomingMessage } from 'node:http';
import { mirroredName } from '../contract.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { JsonRpcRequest } from '../rpc/messages.js';
import type { ToolCatalog } from '../mcp/context.js';
import type { Envelope } from '../mcp/rev2026/envelope.js';

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
    const bodyName = mirroredName(request.method, request.params);
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
