import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../util/log.js';
import type { CallToolResult, ToolContext } from '../tools/types.js';
import { call2026 } from './call2026.js';
import { Client2026 } from './client2026.js';
import type { CallPath2026, DownstreamLink, LinkHooks } from './link.js';
import { Relister } from './notificationGate.js';
import type * as sdk from './sdkClient.js';

interface ProgressParams {
    progress: number;
    total?: number;
    message?: string;
}

/**
 * A connection to a server that speaks only 2026-07-28 (SEP-2575): `server/discover`, then every
 * request with its envelope (client2026.ts). The server asks no questions of its own here (they
 * come back in results, call2026.ts); what it notifies on its requests' streams is their progress
 * and log messages, and on the listen stream its list changes.
 */
export class Link2026 implements DownstreamLink, CallPath2026 {
    readonly revision = '2026-07-28';
    /** Progress of this link's calls, by the token each request carried. */
    private readonly progressRoutes = new Map<string, (params: ProgressParams) => void>();
    private progressTokens = 0;
    private client!: Client2026;
    private readonly relister = new Relister(() =>
        this.listTools().then(
            tools => this.hooks.toolsChanged(tools),
            (err: unknown) => this.hooks.warn(`could not list its changed tools: ${errorMessage(err)}`),
        ),
    );

    private constructor(readonly hooks: LinkHooks) {}

    get capabilities(): Record<string, unknown> {
        return this.client.capabilities;
    }

    get instructions(): string | undefined {
        return this.client.instructions;
    }

    get serverInfo(): { name?: string; version?: string } | undefined {
        return this.client.serverInfo;
    }

    /** Connects over `transport` (server/discover, then the first tools/list, handed to hooks.toolsChanged); rejects with what failed. */
    static async open(transport: Transport, hooks: LinkHooks): Promise<Link2026> {
        const link = new Link2026(hooks);
        try {
            link.client = await Client2026.connect(transport, {
                onNotification: (method, params) => link.notification(method, params),
                onClose: () => hooks.closed(link),
                onError: err => hooks.debug(errorMessage(err)),
            });
            hooks.toolsChanged(await link.listTools());
        } catch (err) {
            transport.onclose = undefined;
            await transport.close().catch(() => undefined);
            throw err;
        }
        return link;
    }

    /** The connection itself, for the calls of call2026.ts. */
    get connection(): Client2026 {
        return this.client;
    }

    listTools(): Promise<Tool[]> {
        return this.client.listTools();
    }

    callTool(toolName: string, args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult> {
        return call2026(this, toolName, args, ctx);
    }

    request(request: { method: string; params?: Record<string, unknown> }, resultSchema: typeof sdk.ResultSchema, options?: { signal?: AbortSignal }): Promise<Record<string, unknown>> {
        return this.client.request(request, resultSchema, options);
    }

    /** A progress token for one request, whose updates go to `listener` until the returned `end` runs. */
    progressToken(listener: (params: ProgressParams) => void): { token: string; end(): void } {
        const token = `gateway-${++this.progressTokens}`;
        this.progressRoutes.set(token, listener);
        return { token, end: () => this.progressRoutes.delete(token) };
    }

    /** Its list changes come on a listen stream, open for the link's life. */
    opened(): void {
        this.client.listen();
    }

    close(): Promise<void> {
        return this.client.close();
    }

    /**
     * What the server notifies on its requests' streams: their progress, log messages, and (on the
     * listen stream) its list changes: its tools are listed again, and the prompt and resource
     * changes reach our clients.
     */
    private notification(method: string, params: Record<string, unknown>): void {
        if (method === 'notifications/progress') {
            this.progressRoutes.get(String(params.progressToken))?.(params as unknown as ProgressParams);
        } else if (method === 'notifications/tools/list_changed') {
            // A burst of list changes is one listing at a time (notificationGate.ts), not one each.
            this.relister.request();
        } else if (method === 'notifications/prompts/list_changed' || method === 'notifications/resources/list_changed') {
            // Without its listen's subscription id, which means nothing to our clients.
            this.hooks.notify(method, {});
        } else if (method === 'notifications/message') {
            this.hooks.notify(method, params);
        }
    }
}
