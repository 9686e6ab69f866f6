import { mirroredName } from '../../server/src/contract.js';
import type { DemoContext } from './context.js';

// The 2026-07-28 walkthrough's client: plain fetch, one POST per request with the standard
// headers and `_meta` (no SDK speaks this revision's tasks yet), each message printed as it goes.

type Json = Record<string, unknown>;

export const PROTOCOL_2026 = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const WITH_TASKS = { elicitation: { form: {} }, sampling: {}, extensions: { [TASKS_EXTENSION]: {} } };

export class RpcFailure extends Error {
    constructor(
        readonly code: number,
        message: string,
        readonly status: number,
        readonly data?: unknown,
    ) {
        super(message);
    }
}

let nextId = 1;

function headers(ctx: DemoContext, method: string, params: Json): Record<string, string> {
    const name = mirroredName(method, params);
    return {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL_2026,
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        ...(ctx.token ? { authorization: `Bearer ${ctx.token}` } : {}),
    };
}

function withMeta(params: Json, capabilities: Json): Json {
    return {
        ...params,
        _meta: {
            'io.modelcontextprotocol/protocolVersion': PROTOCOL_2026,
            'io.modelcontextprotocol/clientCapabilities': capabilities,
            'io.modelcontextprotocol/clientInfo': { name: 'mcp-tasks-demo', version: '1' },
            ...(params._meta as Json | undefined),
        },
    };
}

/** The messages of a JSON or SSE answer. */
function messagesOf(contentType: string, body: string): Json[] {
    if (!contentType.includes('text/event-stream')) {
        return body ? [JSON.parse(body) as Json] : [];
    }
    return body
        .split('\n')
        .filter(line => line.startsWith('data:'))
        .map(line => JSON.parse(line.slice(5)) as Json);
}

/** Sends one request, prints it and what came back, and returns the result (or throws RpcFailure). */
export async function rpc(ctx: DemoContext, method: string, params: Json = {}, capabilities: Json = WITH_TASKS): Promise<Json> {
    const { term } = ctx;
    const { paint } = term;
    const shown = Object.keys(params).length > 0 ? ` ${JSON.stringify(params)}` : '';
    term.print(`  ${paint.blue('→')} ${paint.bold(method)}${shown}${capabilities === WITH_TASKS ? '' : paint.dim(` capabilities=${JSON.stringify(capabilities)}`)}`);
    const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: withMeta(params, capabilities) });
    const response = await fetch(ctx.url, { method: 'POST', headers: headers(ctx, method, params), body });
    const messages = messagesOf(response.headers.get('content-type') ?? '', await response.text());
    for (const message of messages.slice(0, -1)) {
        term.print(`  ${paint.magenta('⇠')} ${paint.bold(String(message.method))} ${JSON.stringify(message.params ?? {})}`);
    }
    const last = messages.at(-1);
    const error = last?.error as { code: number; message: string; data?: unknown } | undefined;
    if (error || !last?.result) {
        term.print(`  ${paint.green('←')} ${paint.red(`HTTP ${response.status}, error ${error?.code}: ${error?.message}`)}`);
        throw new RpcFailure(error?.code ?? 0, error?.message ?? `HTTP ${response.status}`, response.status, error?.data);
    }
    term.print(`  ${paint.green('←')} ${clip(JSON.stringify(last.result))}`);
    return last.result as Json;
}

/** The curl command that sends the same request. */
export function curl(ctx: DemoContext, method: string, params: Json, capabilities: Json = WITH_TASKS): string {
    const name = mirroredName(method, params);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: withMeta(params, capabilities) });
    return [
        `curl -sN "$MCP_URL"${ctx.token ? ' -H "Authorization: Bearer $MCP_TASKS_TOKEN"' : ''}`,
        `  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'`,
        `  -H 'MCP-Protocol-Version: ${PROTOCOL_2026}' -H 'Mcp-Method: ${method}'${typeof name === 'string' ? ` -H 'Mcp-Name: ${name}'` : ''}`,
        `  -d '${body.replaceAll("'", "'\\''")}'`,
    ].join(' \\\n');
}

function clip(text: string, max = 400): string {
    return text.length > max ? `${text.slice(0, max)}…` : text;
}
