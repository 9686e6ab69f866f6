import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, Tool } from '@modelcontextprotocol/sdk/types.js';
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION, META_SERVER_INFO, mirroredName, PROTOCOL_2026 } from '../contract.js';

import { TASKS_EXTENSION } from '../mcp/rev2026/envelope.js';
import { SERVER_VERSION } from '../version.js';
import { DirectRequests } from './directRequests.js';
import { ErrorCode, McpError } from './sdkClient.js';

type Json = Record<string, unknown>;

/** The host's answers reach the downstream through our calls: we can answer either kind of question. */
const CAPABILITIES: Json = { elicitation: { form: {} }, sampling: {} };
const CLIENT_INFO = { name: 'mcp-tasks-gateway', version: SERVER_VERSION };

/**
 * The `_meta` every 2026-07-28 request carries (SEP-2575), built once and frozen: a server may
 * recognise a repeated frozen object (ours does, on stdio) and skip checking it again. The tasks
 * extension is declared only when asked for: a call of ours then may become the downstream's task.
 */
function envelope(extensions: boolean): Json {
    const capabilities = extensions ? { ...CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } } : CAPABILITIES;
    return Object.freeze({ [META_PROTOCOL_VERSION]: PROTOCOL_2026, [META_CLIENT_CAPABILITIES]: capabilities, [META_CLIENT_INFO]: CLIENT_INFO });
}
const PLAIN = envelope(false);
const WITH_TASKS = envelope(true);
/** Each capability whose list changes a listen asks for, and its key in the listen's filter. */
const LIST_CHANGES: readonly [string, string][] = [
    ['tools', 'toolsListChanged'],
    ['prompts', 'promptsListChanged'],
    ['resources', 'resourcesListChanged'],
];
/** For a request no one cancels. */
const NO_SIGNAL = new AbortController().signal;

export interface Handlers2026 {
    /** A notification of the downstream (progress of a call, a log message). */
    onNotification(method: string, params: Json): void;
    /** The connection ended (the process exited, the stream closed). */
    onClose(): void;
    /** A line or frame the downstream sent that is not ours to take. */
    onError(err: Error): void;
}

/**
 * A downstream that speaks only MCP 2026-07-28 (no `initialize`; SEP-2575): `server/discover`
 * says what it offers, and every request carries the envelope in its `_meta`. Requests go
 * through DirectRequests on the transport itself (the SDK 1.x Client knows only the
 * `initialize` handshake); the server sends no requests of its own in this revision (questions
 * come back as InputRequiredResults or a task's inputRequests, call2026.ts), so one that
 * arrives is refused.
 */
export class Client2026 {
    capabilities: Json = {};
    instructions?: string;
    serverInfo?: { name?: string; version?: string };
    private direct!: DirectRequests;
    /** Ends the listen stream when we close. */
    private readonly closing = new AbortController();

    private constructor(private readonly transport: Transport) {}

    /** Starts the transport and asks `server/discover`; rejects when the server does not speak 2026-07-28. */
    static async connect(transport: Transport, handlers: Handlers2026): Promise<Client2026> {
        const client = new Client2026(transport);
        transport.onmessage = message => client.onMessage(message, handlers);
        transport.onclose = () => handlers.onClose();
        transport.onerror = err => handlers.onError(err);
        await transport.start();
        // Wraps the handlers just set: responses to its requests are taken off first.
        client.direct = new DirectRequests(transport);
        const discovered = await client.call('server/discover', {});
        const versions = discovered.supportedVersions;
        if (Array.isArray(versions) && !versions.includes(PROTOCOL_2026)) {
            throw new Error(`it speaks neither 2025-11-25 nor 2026-07-28 (it lists ${versions.join(', ')})`);
        }
        client.capabilities = (discovered.capabilities as Json | undefined) ?? {};
        client.instructions = typeof discovered.instructions === 'string' ? discovered.instructions : undefined;
        client.serverInfo = ((discovered._meta as Json | undefined)?.[META_SERVER_INFO] ?? discovered.serverInfo) as Client2026['serverInfo'];
        return client;
    }

    /**
     * One request with the envelope in its `_meta` (beside any `_meta` of its own, such as a
     * progress token); `tasks` also declares the tasks extension. Resolves with the result as the
     * server gave it (`resultType` and all); rejects as DirectRequests does.
     */
    call(method: string, params: Json, signal: AbortSignal = NO_SIGNAL, tasks = false): Promise<Json> {
        const meta = tasks ? WITH_TASKS : PLAIN;
        const own = params._meta as Json | undefined;
        return this.direct.request(method, { ...params, _meta: own ? { ...own, ...meta } : meta }, signal);
    }

    /**
     * A request whose result is passed on as it is (prompts, resources, completions), in the
     * shape of the SDK Client's `request` so the pass-through treats both alike: a `complete`
     * result without its `resultType` (our entry adds its own revision's), and an error for one
     * that asks the user something, which only tool calls pass on.
     */
    async request(request: { method: string; params?: Json }, _schema?: unknown, options?: { signal?: AbortSignal }): Promise<Json> {
        const result = await this.call(request.method, request.params ?? {}, options?.signal);
        if (result.resultType !== undefined && result.resultType !== 'complete') {
            throw new McpError(ErrorCode.InternalError, `The wrapped server answered ${request.method} with a "${String(result.resultType)}" result, which the gateway passes on only for tool calls`);
        }
        return withoutResultType(result);
    }

    /** Every page of `tools/list`. */
    async listTools(): Promise<Tool[]> {
        const tools: Tool[] = [];
        let cursor: string | undefined;
        do {
            const page = await this.call('tools/list', cursor ? { cursor } : {});
            tools.push(...((page.tools as Tool[] | undefined) ?? []));
            cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
        } while (cursor);
        return tools;
    }

    /**
     * Opens `subscriptions/listen` (SEP-2575) for the list changes of what the server offers: they
     * arrive through onNotification, tagged with the subscription, until the connection closes.
     */
    listen(): void {
        const wanted: Json = {};
        for (const [feature, key] of LIST_CHANGES) {
            if (this.capabilities[feature] !== undefined) {
                wanted[key] = true;
            }
        }
        if (Object.keys(wanted).length > 0) {
            // Never answered while it is open; a server that refuses it just sends no changes.
            this.call('subscriptions/listen', { notifications: wanted }, this.closing.signal).catch(() => undefined);
        }
    }

    async close(): Promise<void> {
        this.closing.abort(new Error('closing'));
        await this.transport.close();
    }

    private onMessage(message: JSONRPCMessage, handlers: Handlers2026): void {
        if (!('method' in message)) {
            // A response that is not ours (DirectRequests took its own): nothing waits for it.
            handlers.onError(new Error(`a response to no request of ours (id ${String((message as { id?: unknown }).id)})`));
        } else if ('id' in message) {
            void this.transport
                .send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${message.method} (a 2026-07-28 server asks through InputRequiredResults)` } })
                .catch(() => undefined);
        } else {
            handlers.onNotification(message.method, (message.params ?? {}) as Json);
        }
    }
}

/** A 2026-07-28 result as a 2025-11-25 one: the same fields but `resultType`. */
export function withoutResultType(result: Json): Json {
    if (result.resultType === undefined) {
        return result;
    }
    const copy = { ...result };
    delete copy.resultType;
    return copy;
}

/** Visible ASCII, space and tab: what a header value may hold as it is (SEP-2243). */
const HEADER_SAFE = /^[\x20-\x7e\t]*$/;

/**
 * The fetch of the SDK's Streamable HTTP transport for a 2026-07-28 downstream: each POST also
 * says its version, method and name in the headers the revision requires (SEP-2243; the SDK 1.x
 * transport knows only 2025-11-25's), and a JSON-RPC error the server answers with an HTTP error
 * status (a 2026-07-28 server does, for some) is handed on as the answer it is, not as a failed POST.
 */
export function fetch2026(base: typeof fetch = fetch): typeof fetch {
    return async (url, init) => {
        if (init?.method !== 'POST' || typeof init.body !== 'string') {
            return base(url, init);
        }
        const message = JSON.parse(init.body) as { method?: unknown; params?: Json };
        const headers = new Headers(init.headers);
        headers.set('mcp-protocol-version', PROTOCOL_2026);
        if (typeof message.method === 'string') {
            headers.set('mcp-method', message.method);
            const name = mirroredName(message.method, message.params);
            if (typeof name === 'string') {
                headers.set('mcp-name', HEADER_SAFE.test(name) ? name : `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`);
            }
        }
        const response = await base(url, { ...init, headers });
        if (response.ok || !response.headers.get('content-type')?.includes('application/json')) {
            return response;
        }
        const text = await response.text();
        const answer = (() => {
            try {
                return JSON.parse(text) as { jsonrpc?: unknown; error?: unknown };
            } catch {
                return undefined;
            }
        })();
        // Not a JSON-RPC error: the failed POST it is.
        const status = answer?.jsonrpc === '2.0' && answer.error !== undefined ? 200 : response.status;
        return new Response(text, { status, headers: response.headers });
    };
}
