import { createInterface } from 'node:readline';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
// One namespace: the SDK client module's export list is not written out again here.
import * as sdk from './sdkClient.js';
import type { Clock, ClockTimer } from '../clock.js';
import { commandEnv, redactor, secretValues, serverSecretsOf } from '../commands/secrets.js';
import { errorMessage, type Logger } from '../log.js';
import { RpcError } from '../rpc/errors.js';
import type { ToolContext } from '../tools/types.js';
import { SERVER_VERSION } from '../version.js';
import { LeanStdioTransport } from './leanStdio.js';
import { AMBIGUOUS, CallsInFlight } from './callsInFlight.js';
import type { DownstreamSpec } from './config.js';
import type { RevisionName } from '../contract.js';
import { DirectRequests, type DirectCall, type DirectProgress } from './directRequests.js';
import { Client2026, fetch2026 } from './client2026.js';

/** Restart delays after a downstream dies: doubling from the first, capped at the last. */
export const RESTART_BACKOFF_MS = { first: 1000, max: 30_000 } as const;
/** A downstream that stayed up this long starts its backoff over when it dies. */
export const STABLE_AFTER_MS = 60_000;
/** How long a call of a tool whose server is starting or restarting waits for it before it fails saying so. */
export const UP_WAIT_MS = 30_000;
/** Longest stderr line logged whole. */
const MAX_LOG_LINE = 2000;
/** The last stderr lines kept to say why a start failed, each cut to MAX_TAIL_LINE. */
const TAIL_LINES = 5;
const MAX_TAIL_LINE = 300;

export type DownstreamState = 'starting' | 'up' | 'restarting' | 'closed';

interface ProgressParams {
    progress: number;
    total?: number;
    message?: string;
}

/** What the pass-through asks of a connection: the SDK Client's `request`, which Client2026 has too. */
export interface Requester {
    request(request: { method: string; params?: Record<string, unknown> }, resultSchema: typeof sdk.ResultSchema, options?: { signal?: AbortSignal }): Promise<Record<string, unknown>>;
}

/**
 * One wrapped MCP server: started with the gateway, its stderr in our log, its tools listed (and
 * listed again on list_changed), its questions routed to the call that asks, and restarted with
 * backoff when it dies. The calls are in call2025.ts; this owns the connection.
 */
export class Downstream {
    readonly calls = new CallsInFlight();
    state: DownstreamState = 'starting';
    /**
     * 2025-11-25 until the server refuses `initialize` with an error answer (a server that speaks
     * only 2026-07-28 does, with UnsupportedProtocolVersionError); then 2026-07-28, kept for its
     * restarts unless `server/discover` is refused too.
     */
    revision: RevisionName = '2025-11-25';
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
    /** The connection of a 2026-07-28 downstream (instead of `client`). */
    private link2026?: Client2026;
    /** The lean path for plain calls on the same connection as `client`. */
    private direct?: DirectRequests;
    private attempt = 0;
    private upSince = 0;
    private restartTimer?: ClockTimer;
    private readonly statusListeners = new Map<string, (params: Record<string, unknown>) => void>();
    /** Progress of a 2026-07-28 downstream's calls (a 2025-11-25 one's goes by DirectRequests). */
    private readonly progressRoutes = new Map<string, (params: ProgressParams) => void>();
    private progressTokens = 0;
    /** Calls waiting for the server to be up (whenUp). */
    private readonly upWaiters = new Set<() => void>();
    /** The last lines its process wrote to stderr (this start's), for the message of a failed start. */
    private stderrTail: string[] = [];

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

    /**
     * Resolves once the server is up, or after `maxMs`, or when `signal` aborts or the server is shut
     * down, whichever comes first (never rejects): a call of a server that is starting or restarting
     * waits for it instead of failing at once.
     */
    whenUp(signal: AbortSignal, maxMs = UP_WAIT_MS): Promise<void> {
        if (this.state === 'up' || this.state === 'closed' || signal.aborted) {
            return Promise.resolve();
        }
        return new Promise<void>(resolve => {
            const done = () => {
                this.clock.clearTimeout(timer);
                signal.removeEventListener('abort', done);
                this.upWaiters.delete(done);
                resolve();
            };
            const timer = this.clock.setTimeout(done, maxMs, undefined, true);
            signal.addEventListener('abort', done, { once: true });
            this.upWaiters.add(done);
        });
    }

    /** The live 2026-07-28 connection, or the error connected() gives. */
    client2026(): Client2026 {
        if (this.state === 'up' && this.link2026) {
            return this.link2026;
        }
        this.connected();
        throw new Error(`The wrapped MCP server "${this.name}" does not speak 2026-07-28`);
    }

    /** The live connection for forwarded requests (prompts, resources, …), whichever revision it speaks. */
    requester(): Requester {
        return this.revision === '2026-07-28' ? this.client2026() : this.connected();
    }

    /** Connects once; a failure is logged and retried with backoff (never rejects). */
    async start(): Promise<void> {
        if (this.state === 'closed') {
            return;
        }
        if (this.revision === '2026-07-28') {
            return this.start2026();
        }
        const client = new sdk.Client(
            { name: 'mcp-tasks-gateway', version: SERVER_VERSION },
            // The host's answers reach the downstream through our tasks: we can ask for either.
            { capabilities: { elicitation: { form: {} }, sampling: {} } },
        );
        client.setRequestHandler(sdk.ElicitRequestSchema, async request => (await this.asker(request.params, 'ask the user').elicit(CallsInFlight.upstreamParams(request.params) as never)) as never);
        client.setRequestHandler(sdk.CreateMessageRequestSchema, async request => (await this.asker(request.params, 'ask for sampling').createMessage(CallsInFlight.upstreamParams(request.params) as never)) as never);
        client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => void this.listTools(client));
        // Progress is routed by DirectRequests, not the SDK's onprogress: the SDK drops an update
        // that arrives in the same read as its call's response (its handler is gone by the time the
        // notification's turn comes), and a call's last update is often just that.
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
            client.onclose = undefined;
            await client.close().catch(() => undefined);
            if (refused(err) && client.getServerCapabilities() === undefined && (this.state as DownstreamState) !== 'closed') {
                // An error answer to initialize (not to tools/list after it): a server that speaks only 2026-07-28 (SEP-2575) gives one.
                this.log.info(`[${this.name}] refused initialize (${errorMessage(err)}); speaking protocol 2026-07-28 to it`);
                this.revision = '2026-07-28';
                return this.start2026();
            }
            this.failedStart(err);
            return;
        }
        if (await this.closedMeanwhile(client)) {
            return;
        }
        this.client = client;
        this.direct = new DirectRequests(transport);
        this.capabilities = client.getServerCapabilities() as Record<string, unknown> | undefined;
        this.instructions = client.getInstructions();
        this.up(client.getServerVersion());
    }

    /** The call whose user a downstream question goes to; throws what the downstream is answered when there is none it surely belongs to. */
    private asker(params: { _meta?: Record<string, unknown> } | undefined, what: string): ToolContext {
        const ctx = this.calls.route(params);
        if (ctx === AMBIGUOUS) {
            this.log.warn(`[${this.name}] refused a question that names no task while calls of several clients run: it could be any of theirs`);
            throw new sdk.McpError(
                sdk.ErrorCode.InvalidRequest,
                'The gateway did not pass this question on: calls of several clients are running on this server and the question does not say which call it belongs to, so it could reach the wrong user. Call the tool again once the other calls on this server have ended',
            );
        }
        if (!ctx) {
            throw new sdk.McpError(sdk.ErrorCode.InvalidRequest, `No call is running through the gateway to ${what}`);
        }
        return ctx;
    }

    /** Whether the server began stopping while `link` was connecting; then `link` is closed and not used. */
    private async closedMeanwhile(link: { close(): Promise<void> }): Promise<boolean> {
        if ((this.state as DownstreamState) !== 'closed') {
            return false;
        }
        await link.close().catch(() => undefined);
        return true;
    }

    /** Connects to a server that speaks only 2026-07-28: server/discover, then its tools (client2026.ts). */
    private async start2026(): Promise<void> {
        const transport = this.transport();
        let link: Client2026 | undefined;
        try {
            link = await Client2026.connect(transport, {
                onNotification: (method, params) => this.notification2026(method, params),
                onClose: () => this.closed(link),
                onError: err => this.log.debug(`[${this.name}] ${errorMessage(err)}`),
            });
            this.tools = await link.listTools();
        } catch (err) {
            transport.onclose = undefined;
            await transport.close().catch(() => undefined);
            if (refused(err)) {
                // It refused server/discover too: ask with initialize again next time.
                this.revision = '2025-11-25';
            }
            this.failedStart(err);
            return;
        }
        if (await this.closedMeanwhile(link)) {
            return;
        }
        this.link2026 = link;
        this.capabilities = link.capabilities;
        this.instructions = link.instructions;
        this.onToolsChanged();
        this.up(link.serverInfo);
        link.listen();
    }

    /**
     * What a 2026-07-28 downstream notifies on its requests' streams: their progress, log messages,
     * and (on the listen stream) its list changes: its tools are listed again, and the prompt and
     * resource changes reach our clients.
     */
    private notification2026(method: string, params: Record<string, unknown>): void {
        if (method === 'notifications/progress') {
            this.progressRoutes.get(String(params.progressToken))?.(params as unknown as ProgressParams);
        } else if (method === 'notifications/tools/list_changed') {
            const link = this.link2026;
            link?.listTools().then(
                tools => {
                    if (this.link2026 === link) {
                        this.tools = tools;
                        this.onToolsChanged();
                    }
                },
                (err: unknown) => this.log.warn(`[${this.name}] could not list its changed tools: ${errorMessage(err)}`),
            );
        } else if (method === 'notifications/prompts/list_changed' || method === 'notifications/resources/list_changed') {
            // Without its listen's subscription id, which means nothing to our clients.
            this.onNotification?.(method, {});
        } else if (method === 'notifications/message') {
            this.onNotification?.(method, params);
        }
    }

    private failedStart(err: unknown): void {
        const said = this.stderrTail.length > 0 ? `; the last it wrote to stderr: ${this.stderrTail.join(' | ')}` : '';
        this.lastExit = `could not start: ${errorMessage(err)}${said}`;
        this.log.error(`[${this.name}] ${this.lastExit}`);
        this.scheduleRestart();
    }

    private up(info: { name?: string; version?: string } | undefined): void {
        this.state = 'up';
        this.upSince = this.clock.now();
        // A 2025-11-25 server's line is as it always was; only the newer revision is named.
        const protocol = this.revision === '2026-07-28' ? 'protocol 2026-07-28, ' : '';
        this.log.info(`[${this.name}] connected (${info?.name ?? 'unnamed server'} ${info?.version ?? ''}, ${protocol}${this.tools.length} tools)`);
        this.onConnected?.();
        for (const waiter of [...this.upWaiters]) {
            waiter();
        }
    }

    /**
     * A plain tools/call on the live connection through the lean path (DirectRequests: what it
     * saves is said there), its progress to `onProgress`; call it right after connected(), which
     * says why there is none.
     */
    callTool(name: string, args: Record<string, unknown>, onProgress: ((update: DirectProgress) => void) | undefined): DirectCall {
        this.connected();
        return this.direct!.callTool(name, args, onProgress);
    }

    /** A progress token for one request to a 2026-07-28 downstream, whose updates go to `listener` until the returned `end` runs. */
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
        for (const waiter of [...this.upWaiters]) {
            waiter();
        }
        this.clock.clearTimeout(this.restartTimer);
        const client = this.client ?? this.link2026;
        this.client = undefined;
        this.link2026 = undefined;
        this.direct = undefined;
        await client?.close().catch(() => undefined);
    }

    private transport(): Transport {
        const { spec } = this;
        if (spec.kind === 'http') {
            return new sdk.StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers: spec.headers }, fetch: this.revision === '2026-07-28' ? fetch2026() : undefined });
        }
        // The environment a host would give it (the SDK's default keeps only HOME, PATH, SHELL and
        // TERM, which loses what npx needs: proxy and CA settings, a user's API keys), with the
        // entry's env on top, and never our own MCP_TASKS_* settings and tokens, env key or not.
        const env = commandEnv(process.env, spec.env ?? {});
        const transport = new LeanStdioTransport({ command: spec.command, args: spec.args, env, cwd: spec.cwd, stderr: 'pipe' });
        // What it writes to stderr reaches our log and, when a start fails, the model: its secrets are hidden as a command's are.
        const redact = redactor(secretValues(env, spec.env ?? {}, serverSecretsOf(process.env)));
        this.log.info(`[${this.name}] starting: ${[spec.command, ...spec.args].join(' ')}`);
        const stderr = transport.stderr;
        if (stderr) {
            this.stderrTail = [];
            createInterface({ input: stderr as unknown as NodeJS.ReadableStream, crlfDelay: Infinity }).on('line', raw => {
                const line = redact(raw);
                const shown = line.length > MAX_LOG_LINE ? `${line.slice(0, MAX_LOG_LINE)}… (${line.length} chars)` : line;
                this.log.info(`[${this.name}] ${shown}`);
                if (shown.trim() !== '') {
                    this.stderrTail.push(shown.length > MAX_TAIL_LINE ? `${shown.slice(0, MAX_TAIL_LINE)}…` : shown);
                    if (this.stderrTail.length > TAIL_LINES) {
                        this.stderrTail.shift();
                    }
                }
            });
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
    private closed(connection: sdk.Client | Client2026 | undefined): void {
        if (connection === undefined || (this.client ?? this.link2026) !== connection || this.state === 'closed') {
            return;
        }
        this.client = undefined;
        this.link2026 = undefined;
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

/** An error answer of the server's own (not a lost connection or a timeout of ours): it refused the request. */
function refused(err: unknown): boolean {
    return err instanceof sdk.McpError && err.code !== sdk.ErrorCode.ConnectionClosed && err.code !== sdk.ErrorCode.RequestTimeout;
}

/** Whether an error is the SDK's "connection closed" for a request that was in flight. */
export function isConnectionClosed(err: unknown): boolean {
    return err instanceof sdk.McpError && err.code === sdk.ErrorCode.ConnectionClosed;
}
