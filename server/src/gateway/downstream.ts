import { createInterface } from 'node:readline';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
// One namespace: the SDK client module's export list is not written out again here.
import * as sdk from './sdkClient.js';
import type { Clock, ClockTimer } from '../clock.js';
import { errorMessage, type Logger } from '../log.js';
import { RpcError } from '../rpc/errors.js';
import { SERVER_VERSION } from '../version.js';
import { LeanStdioTransport } from './leanStdio.js';
import { CallsInFlight } from './callsInFlight.js';
import type { DownstreamSpec } from './config.js';
import { DirectRequests } from './directRequests.js';

/** Restart delays after a downstream dies: doubling from the first, capped at the last. */
export const RESTART_BACKOFF_MS = { first: 1000, max: 30_000 } as const;
/** A downstream that stayed up this long starts its backoff over when it dies. */
export const STABLE_AFTER_MS = 60_000;
/** Longest stderr line logged whole. */
const MAX_LOG_LINE = 2000;

export type DownstreamState = 'starting' | 'up' | 'restarting' | 'closed';

interface ProgressParams {
    progress: number;
    total?: number;
    message?: string;
}

/**
 * One wrapped MCP server: started with the gateway, its stderr in our log, its tools listed (and
 * listed again on list_changed), its questions routed to the call that asks, and restarted with
 * backoff when it dies. The calls are in downstreamCall.ts; this owns the connection.
 */
export class Downstream {
    readonly calls = new CallsInFlight();
    state: DownstreamState = 'starting';
    tools: Tool[] = [];
    /** What the server declared at its last connection (prompts, resources, …). */
    capabilities?: Record<string, unknown>;
    /** The guidance for the model it sent in initialize, if any. */
    instructions?: string;
    /** Why the last connection ended, for the calls it took down. */
    lastExit?: string;
    /** Hears the notifications every client of ours hears too: prompt and resource list changes, resource updates, log messages. */
    onNotification?: (method: string, params: Record<string, unknown>) => void;
    /** Called on each connection, the first and every one after a restart (which forgets what the server was told). */
    onConnected?: () => void;
    private client?: sdk.Client;
    /** The lean path for plain calls on the same connection as `client`. */
    private direct?: DirectRequests;
    private attempt = 0;
    private upSince = 0;
    private restartTimer?: ClockTimer;
    private readonly statusListeners = new Map<string, (params: Record<string, unknown>) => void>();
    private readonly progressRoutes = new Map<string, (params: ProgressParams) => void>();
    private progressTokens = 0;

    constructor(
        readonly spec: DownstreamSpec,
        private readonly log: Logger,
        readonly clock: Clock,
        private readonly onToolsChanged: () => void,
    ) {}

    get name(): string {
        return this.spec.name;
    }

    /** The live client, or an error a caller can show: the server is starting, restarting or gone. */
    connected(): sdk.Client {
        if (this.state === 'up' && this.client) {
            return this.client;
        }
        const why = this.lastExit ? ` (${this.lastExit})` : '';
        const when = this.state === 'closed' ? 'has been shut down' : this.state === 'restarting' ? `is restarting${why}` : 'is still starting';
        throw new Error(`The wrapped MCP server "${this.name}" ${when}; try the call again in a few seconds`);
    }

    /** Connects once; a failure is logged and retried with backoff (never rejects). */
    async start(): Promise<void> {
        if (this.state === 'closed') {
            return;
        }
        const client = new sdk.Client(
            { name: 'mcp-tasks-gateway', version: SERVER_VERSION },
            // The host's answers reach the downstream through our tasks: we can ask for either.
            { capabilities: { elicitation: { form: {} }, sampling: {} } },
        );
        client.setRequestHandler(sdk.ElicitRequestSchema, async request => {
            const ctx = this.calls.route(request.params);
            if (!ctx) {
                throw new sdk.McpError(sdk.ErrorCode.InvalidRequest, 'No call is running through the gateway to ask the user');
            }
            return (await ctx.elicit(CallsInFlight.upstreamParams(request.params) as never)) as never;
        });
        client.setRequestHandler(sdk.CreateMessageRequestSchema, async request => {
            const ctx = this.calls.route(request.params);
            if (!ctx) {
                throw new sdk.McpError(sdk.ErrorCode.InvalidRequest, 'No call is running through the gateway to ask for sampling');
            }
            return (await ctx.createMessage(CallsInFlight.upstreamParams(request.params) as never)) as never;
        });
        client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => void this.listTools(client));
        // Our own routing of progress, not the SDK's onprogress: the SDK drops an update that
        // arrives in the same read as its call's response (its handler is gone by the time the
        // notification's turn comes), and a call's last update is often just that.
        client.setNotificationHandler(sdk.ProgressNotificationSchema, notification => this.progressRoutes.get(String(notification.params.progressToken))?.(notification.params));
        client.setNotificationHandler(sdk.TaskStatusNotificationSchema, notification => {
            const params = notification.params as Record<string, unknown>;
            this.statusListeners.get(params.taskId as string)?.(params);
        });
        for (const schema of [sdk.PromptListChangedNotificationSchema, sdk.ResourceListChangedNotificationSchema, sdk.ResourceUpdatedNotificationSchema, sdk.LoggingMessageNotificationSchema]) {
            client.setNotificationHandler(schema, notification => this.onNotification?.(notification.method, (notification.params ?? {}) as Record<string, unknown>));
        }
        client.onerror = err => this.log.debug(`[${this.name}] ${errorMessage(err)}`);
        const transport = this.transport();
        client.onclose = () => this.closed(client);
        try {
            await client.connect(transport);
            await this.listTools(client);
        } catch (err) {
            this.lastExit = `could not start: ${errorMessage(err)}`;
            this.log.error(`[${this.name}] ${this.lastExit}`);
            client.onclose = undefined;
            await client.close().catch(() => undefined);
            this.scheduleRestart();
            return;
        }
        // Closed while connecting (the server is stopping).
        if ((this.state as DownstreamState) === 'closed') {
            await client.close().catch(() => undefined);
            return;
        }
        this.client = client;
        this.direct = new DirectRequests(transport);
        this.capabilities = client.getServerCapabilities() as Record<string, unknown> | undefined;
        this.instructions = client.getInstructions();
        this.state = 'up';
        this.upSince = this.clock.now();
        const info = client.getServerVersion();
        this.log.info(`[${this.name}] connected (${info?.name ?? 'unnamed server'} ${info?.version ?? ''}, ${this.tools.length} tools)`);
        this.onConnected?.();
    }

    /**
     * A plain tools/call on the live connection through the lean path (DirectRequests: what it
     * saves is said there); call it right after connected(), which says why there is none.
     */
    callTool(params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
        return this.connectedDirect().request('tools/call', params, signal);
    }

    private connectedDirect(): DirectRequests {
        this.connected();
        return this.direct!;
    }

    /** A progress token for one downstream request, whose updates go to `listener` until the returned `end` runs. */
    progressToken(listener: (params: ProgressParams) => void): { token: string; end(): void } {
        const token = `gateway-${++this.progressTokens}`;
        this.progressRoutes.set(token, listener);
        return { token, end: () => this.progressRoutes.delete(token) };
    }

    /** Mirrors a downstream task's status notifications to `listener` until the returned function runs. */
    watchTask(taskId: string, listener: (params: Record<string, unknown>) => void): () => void {
        this.statusListeners.set(taskId, listener);
        return () => this.statusListeners.delete(taskId);
    }

    async close(): Promise<void> {
        this.state = 'closed';
        this.clock.clearTimeout(this.restartTimer);
        const client = this.client;
        this.client = undefined;
        this.direct = undefined;
        await client?.close().catch(() => undefined);
    }

    private transport(): Transport {
        const { spec } = this;
        if (spec.kind === 'http') {
            return new sdk.StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers: spec.headers } });
        }
        const transport = new LeanStdioTransport({ command: spec.command, args: spec.args, env: spec.env ? { ...process.env, ...spec.env } as Record<string, string> : undefined, cwd: spec.cwd, stderr: 'pipe' });
        const stderr = transport.stderr;
        if (stderr) {
            createInterface({ input: stderr as unknown as NodeJS.ReadableStream, crlfDelay: Infinity }).on('line', line => this.log.info(`[${this.name}] ${line.length > MAX_LOG_LINE ? `${line.slice(0, MAX_LOG_LINE)}… (${line.length} chars)` : line}`));
        }
        return transport;
    }

    private async listTools(client: sdk.Client): Promise<void> {
        const tools: Tool[] = [];
        let cursor: string | undefined;
        do {
            const page = await client.listTools(cursor ? { cursor } : undefined);
            tools.push(...page.tools);
            cursor = page.nextCursor;
        } while (cursor);
        this.tools = tools;
        this.onToolsChanged();
    }

    /** The connection ended: on its own (the process died), or because we closed it. */
    private closed(client: sdk.Client): void {
        if (this.client !== client || this.state === 'closed') {
            return;
        }
        this.client = undefined;
        this.direct = undefined;
        this.lastExit = this.spec.kind === 'stdio' ? 'its process exited' : 'its connection closed';
        this.log.warn(`[${this.name}] stopped: ${this.lastExit}; running calls through it fail`);
        if (this.clock.now() - this.upSince >= STABLE_AFTER_MS) {
            this.attempt = 0;
        }
        this.scheduleRestart();
    }

    private scheduleRestart(): void {
        if (this.state === 'closed') {
            return;
        }
        this.state = 'restarting';
        const delay = Math.min(RESTART_BACKOFF_MS.first * 2 ** this.attempt, RESTART_BACKOFF_MS.max);
        this.attempt++;
        this.log.info(`[${this.name}] restarting in ${delay / 1000} s (attempt ${this.attempt})`);
        this.restartTimer = this.clock.setTimeout(downstream => void downstream.start(), delay, this, true);
    }
}

/** A downstream's error answer as ours: its code, message (without the SDK's "MCP error N: " prefix) and data. */
export function asRpcError(err: unknown): RpcError | undefined {
    if (!(err instanceof sdk.McpError)) {
        return undefined;
    }
    return new RpcError(err.code, err.message.replace(/^MCP error -?\d+: /, ''), err.data);
}

/** Whether an error is the SDK's "connection closed" for a request that was in flight. */
export function isConnectionClosed(err: unknown): boolean {
    return err instanceof sdk.McpError && err.code === sdk.ErrorCode.ConnectionClosed;
}
