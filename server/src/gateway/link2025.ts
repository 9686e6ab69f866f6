import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import * as sdk from './sdkClient.js';
import { errorMessage } from '../util/log.js';
import type { CallToolResult, ToolContext } from '../tools/types.js';
import { SERVER_VERSION } from '../version.js';
import { CallsInFlight } from './callsInFlight.js';
import { call2025 } from './call2025.js';
import { DirectRequests, type DirectCall, type DirectProgress } from './directRequests.js';
import { refused, type CallPath2025, type DownstreamLink, type LinkHooks } from './link.js';
import { Relister } from './notificationGate.js';

/** Thrown by Link2025.open when the server answered `initialize` with an error: it may speak only 2026-07-28. */
export class HandshakeRefused extends Error {}

/**
 * A connection to a server that speaks 2025-11-25: `initialize` through the SDK Client, which
 * also answers the server's questions (sent to the user of the call that asks, LinkHooks.asker)
 * and hears its notifications; plain calls go by DirectRequests, the lean path (what it saves is
 * said there).
 */
export class Link2025 implements DownstreamLink, CallPath2025 {
    readonly revision = '2025-11-25';
    capabilities: Record<string, unknown> | undefined;
    instructions: string | undefined;
    serverInfo: { name?: string; version?: string } | undefined;
    private readonly statusListeners = new Map<string, (params: Record<string, unknown>) => void>();
    private direct!: DirectRequests;

    private constructor(
        readonly client: sdk.Client,
        readonly hooks: LinkHooks,
    ) {}

    /**
     * Connects over `transport` (initialize, then the first tools/list, handed to hooks.toolsChanged).
     * Rejects with HandshakeRefused when the server answers initialize with an error (a server that
     * speaks only 2026-07-28 does, with UnsupportedProtocolVersionError), else with what failed.
     */
    static async open(transport: Transport, hooks: LinkHooks): Promise<Link2025> {
        const client = new sdk.Client(
            { name: 'mcp-tasks-gateway', version: SERVER_VERSION },
            // The host's answers reach the downstream through our tasks: we can ask for either. Roots
            // are the host's, asked when the server asks (an empty list when there is no one host).
            { capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } } },
        );
        const link = new Link2025(client, hooks);
        client.setRequestHandler(sdk.ElicitRequestSchema, async request => (await hooks.asker(request.params, 'ask the user').elicit(CallsInFlight.upstreamParams(request.params) as never)) as never);
        client.setRequestHandler(sdk.CreateMessageRequestSchema, async request => (await hooks.asker(request.params, 'ask for sampling').createMessage(CallsInFlight.upstreamParams(request.params) as never)) as never);
        // A burst of list changes is one listing at a time (notificationGate.ts), not one each.
        const relister = new Relister(() => link.relist());
        client.setRequestHandler(sdk.ListRootsRequestSchema, async (_request, extra) => ({ roots: (await hooks.roots(extra.signal)) as never[] }));
        client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => relister.request());
        // Progress is routed by DirectRequests, not the SDK's onprogress: the SDK drops an update
        // that arrives in the same read as its call's response (its handler is gone by the time the
        // notification's turn comes), and a call's last update is often just that.
        client.setNotificationHandler(sdk.TaskStatusNotificationSchema, notification => {
            const params = notification.params as Record<string, unknown>;
            link.statusListeners.get(params.taskId as string)?.(params);
        });
        for (const schema of [sdk.PromptListChangedNotificationSchema, sdk.ResourceListChangedNotificationSchema, sdk.ResourceUpdatedNotificationSchema, sdk.LoggingMessageNotificationSchema]) {
            client.setNotificationHandler(schema, notification => hooks.notify(notification.method, (notification.params ?? {}) as Record<string, unknown>));
        }
        client.onerror = err => hooks.debug(errorMessage(err));
        client.onclose = () => hooks.closed(link);
        try {
            await client.connect(transport);
            hooks.toolsChanged(await link.listTools());
        } catch (err) {
            client.onclose = undefined;
            await client.close().catch(() => undefined);
            // An error answer to initialize (not to tools/list after it).
            throw refused(err) && client.getServerCapabilities() === undefined ? new HandshakeRefused(errorMessage(err), { cause: err }) : err;
        }
        link.direct = new DirectRequests(transport);
        link.capabilities = client.getServerCapabilities() as Record<string, unknown> | undefined;
        link.instructions = client.getInstructions();
        link.serverInfo = client.getServerVersion();
        return link;
    }

    async listTools(): Promise<Tool[]> {
        const tools: Tool[] = [];
        let cursor: string | undefined;
        do {
            // As sent, not schema-checked as a whole: one malformed tool must not cost the others (toolChecks.ts).
            const page = await this.client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, sdk.ResultSchema);
            tools.push(...((Array.isArray(page.tools) ? page.tools : []) as Tool[]));
            cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
        } while (cursor);
        return tools;
    }

    callTool(toolName: string, args: Record<string, unknown>, ctx: ToolContext, asTask: boolean): Promise<CallToolResult> {
        return call2025(this, toolName, args, ctx, asTask);
    }

    /** A plain tools/call on the lean path, its progress to `onProgress`. */
    plainCall(name: string, args: Record<string, unknown>, onProgress: ((update: DirectProgress) => void) | undefined): DirectCall {
        return this.direct.callTool(name, args, onProgress);
    }

    request(request: { method: string; params?: Record<string, unknown> }, resultSchema: typeof sdk.ResultSchema, options?: { signal?: AbortSignal }): Promise<Record<string, unknown>> {
        return this.client.request(request, resultSchema, options);
    }

    /** Mirrors a downstream task's status notifications to `listener` until the returned function runs. */
    watchTask(taskId: string, listener: (params: Record<string, unknown>) => void): () => void {
        this.statusListeners.set(taskId, listener);
        return () => this.statusListeners.delete(taskId);
    }

    opened(): void {}

    rootsChanged(): void {
        this.client.sendRootsListChanged().catch((err: unknown) => this.hooks.debug(`could not say the roots changed: ${errorMessage(err)}`));
    }

    async close(): Promise<void> {
        this.client.onclose = undefined;
        await this.client.close();
    }

    private async relist(): Promise<void> {
        try {
            this.hooks.toolsChanged(await this.listTools());
        } catch (err) {
            this.hooks.warn(`could not list its changed tools: ${errorMessage(err)}`);
        }
    }
}
