import { createInterface } from 'node:readline';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
// One namespace: the SDK client module's export list is not written out again here.
import * as sdk from './sdkClient.js';
import { waitAtMost, type Clock, type ClockTimer } from '../util/clock.js';
import { commandEnv, redactor, secretValues, serverSecretsOf } from '../commands/secrets.js';
import { errorMessage, type Logger } from '../util/log.js';
import { textResult, type CallToolResult, type ToolContext } from '../tools/types.js';
import { LeanStdioTransport } from './leanStdio.js';
import { AMBIGUOUS, CallsInFlight } from './callsInFlight.js';
import type { DownstreamSpec } from './config.js';
import type { RevisionName } from '../contract.js';
import { fetch2026 } from './client2026.js';
import { refused, type DownstreamLink, type LinkHooks } from './link.js';
import { HandshakeRefused, Link2025 } from './link2025.js';
import { Link2026 } from './link2026.js';
import { usableTools } from './toolChecks.js';
import { NotificationGate } from './notificationGate.js';
import { redactError, redactResult, wrapRedactor } from './wrapSecrets.js';

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

/**
 * One wrapped MCP server: started with the gateway, its stderr in our log, its tools listed (and
 * listed again on list_changed), its questions routed to the call that asks, and restarted with
 * backoff when it dies. This owns the process and its restarts; each connection is a link of the
 * revision the server speaks (link.ts), which runs the calls (call2025.ts, call2026.ts).
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
    /** Our host's roots, for the server's roots/list; none when unset (see Gateway.setRoots). */
    roots?: (signal: AbortSignal) => Promise<unknown[]>;
    /** Called on each connection, the first and every one after a restart (which forgets what the server was told). */
    onConnected?: () => void;
    /** The live connection, in the revision the server speaks. */
    private link?: DownstreamLink;
    /** This start's token: what a link of an earlier start reports is not heard. */
    private attemptToken?: object;
    private attempt = 0;
    private upSince = 0;
    private restartTimer?: ClockTimer;
    /** Calls waiting for the server to be up (whenUp). */
    private readonly upWaiters = new Set<() => void>();
    /** The last lines its process wrote to stderr (this start's), for the message of a failed start. */
    private stderrTail: string[] = [];
    /** Its log messages and list changes, bounded on their way to every client. */
    private readonly gate: NotificationGate;
    /** This start's stdio transport, which knows why it closed the connection itself (a line over the limit). */
    private stdio?: LeanStdioTransport;
    /** Hides its URL's and headers' credentials in what a model reads of it (wrapSecrets.ts); none for a stdio server. */
    private readonly redact?: (text: string) => string;

    constructor(
        readonly spec: DownstreamSpec,
        private readonly log: Logger,
        readonly clock: Clock,
        private readonly onToolsChanged: () => void,
    ) {
        this.redact = wrapRedactor([spec]);
        this.gate = new NotificationGate(spec.name, clock, (method, params) => this.onNotification?.(method, params));
    }

    get name(): string {
        return this.spec.name;
    }

    /** The live connection, or an error a caller can show: the server is starting, restarting or gone. */
    connected(): DownstreamLink {
        if (this.state === 'up' && this.link) {
            return this.link;
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
        return waitAtMost(this.clock, signal, maxMs, done => {
            this.upWaiters.add(done);
            return () => this.upWaiters.delete(done);
        });
    }

    /**
     * Runs its tool `toolName` for one of our calls, on the connection it has when the call starts
     * (a restart may find it speaking another revision). A server that is starting or restarting
     * is waited for (a while); one still not up, or gone, is a tool error saying so.
     */
    async callTool(toolName: string, args: Record<string, unknown>, ctx: ToolContext, asTask: boolean): Promise<CallToolResult> {
        if (this.state !== 'up') {
            await this.whenUp(ctx.signal);
        }
        let link: DownstreamLink;
        try {
            link = this.connected();
        } catch (err) {
            return textResult(errorMessage(err), true);
        }
        const { redact } = this;
        if (!redact) {
            return link.callTool(toolName, args, ctx, asTask);
        }
        return link.callTool(toolName, args, ctx, asTask).then(
            result => redactResult(result, redact),
            (err: unknown) => {
                throw redactError(err, redact);
            },
        );
    }

    /** Connects once; a failure is logged and retried with backoff (never rejects). */
    async start(): Promise<void> {
        if (this.state === 'closed') {
            return;
        }
        const token = {};
        this.attemptToken = token;
        const hooks = this.hooks(token);
        let link: DownstreamLink;
        try {
            if (this.revision === '2025-11-25') {
                try {
                    link = await Link2025.open(this.transport(), hooks);
                } catch (err) {
                    if (!(err instanceof HandshakeRefused) || (this.state as DownstreamState) === 'closed') {
                        throw err;
                    }
                    this.log.info(`[${this.name}] refused initialize (${err.message}); speaking protocol 2026-07-28 to it`);
                    this.revision = '2026-07-28';
                    link = await this.open2026(hooks);
                }
            } else {
                link = await this.open2026(hooks);
            }
        } catch (err) {
            this.failedStart(err);
            return;
        }
        if ((this.state as DownstreamState) === 'closed') {
            await link.close().catch(() => undefined);
            return;
        }
        this.link = link;
        this.capabilities = link.capabilities;
        this.instructions = link.instructions;
        this.up(link.serverInfo);
        link.opened();
    }

    /** A 2026-07-28 connection; one refused too makes the next start ask with initialize again. */
    private async open2026(hooks: LinkHooks): Promise<DownstreamLink> {
        try {
            return await Link2026.open(this.transport(), hooks);
        } catch (err) {
            if (refused(err)) {
                this.revision = '2025-11-25';
            }
            throw err;
        }
    }

    /** What a link of start `token` tells this downstream; a link of an earlier start is not heard. */
    private hooks(token: object): LinkHooks {
        const current = () => this.attemptToken === token;
        return {
            name: this.name,
            clock: this.clock,
            lastExit: () => this.lastExit,
            toolsChanged: tools => {
                if (current()) {
                    this.tools = usableTools(tools, text => this.log.warn(`[${this.name}] ${text}`));
                    this.onToolsChanged();
                }
            },
            notify: this.gate.pass,
            roots: signal => this.roots?.(signal) ?? Promise.resolve([]),
            asker: (params, what) => this.asker(params, what),
            begin: (ctx, task) => this.calls.begin(ctx, task),
            bindTask: (taskId, ctx) => this.calls.bindTask(taskId, ctx),
            cancelRestartSeconds: this.spec.kind === 'stdio' ? this.spec.restartOnIgnoredCancel : undefined,
            restartToStop: toolName => (current() ? this.restartToStop(toolName) : Promise.resolve()),
            closed: link => this.closed(link),
            debug: text => this.log.debug(`[${this.name}] ${text}`),
            warn: text => this.log.warn(`[${this.name}] ${text}`),
        };
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

    private failedStart(err: unknown): void {
        const said = this.stderrTail.length > 0 ? `; the last it wrote to stderr: ${this.stderrTail.join(' | ')}` : '';
        this.lastExit = `could not start: ${errorMessage(err)}${said}`;
        this.lastExit = this.redact?.(this.lastExit) ?? this.lastExit;
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

    /** Tells the running server our host's roots changed. */
    rootsChanged(): void {
        if (this.state === 'up') {
            this.link?.rootsChanged?.();
        }
    }

    async close(): Promise<void> {
        this.state = 'closed';
        for (const waiter of [...this.upWaiters]) {
            waiter();
        }
        this.clock.clearTimeout(this.restartTimer);
        this.gate.close();
        const link = this.link;
        this.link = undefined;
        await link?.close().catch(() => undefined);
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
        this.stdio = transport;
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

    /** The connection ended: on its own (the process died), or because we closed it. */
    private closed(link: DownstreamLink): void {
        if (this.link !== link || this.state === 'closed') {
            return;
        }
        this.link = undefined;
        this.lastExit = this.spec.kind === 'stdio' ? (this.stdio?.endReason ?? 'its process exited') : 'its connection closed';
        this.log.warn(`[${this.name}] stopped: ${this.lastExit}; running calls through it fail`);
        if (this.clock.now() - this.upSince >= STABLE_AFTER_MS) {
            this.attempt = 0;
        }
        this.scheduleRestart();
    }

    /**
     * Stops the server (its process tree, as closing any connection does) because a cancelled
     * call did not end in time (restartOnIgnoredCancel), and starts it again at once. Every call
     * still running on it fails saying why (link.ts callFailed, with lastExit).
     */
    private async restartToStop(toolName: string): Promise<void> {
        const link = this.link;
        if (!link || this.state !== 'up') {
            return;
        }
        const seconds = this.spec.kind === 'stdio' ? this.spec.restartOnIgnoredCancel : undefined;
        this.link = undefined;
        this.state = 'restarting';
        this.lastExit = `the gateway restarted it to stop a call of ${toolName} that did not end within ${seconds} s of its cancel`;
        this.log.warn(`[${this.name}] ${toolName} did not end within ${seconds} s of its cancel: restarting the server to stop it; running calls through it fail`);
        await link.close().catch(() => undefined);
        if ((this.state as DownstreamState) === 'restarting') {
            void this.start();
        }
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
