import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from '../util/clock.js';
import { errorMessage } from '../util/log.js';
import { ErrorCodes } from '../rpc/errors.js';
import { decodeFrame, invalidMessageError } from '../rpc/messages.js';

import { OWNER_PROOF_HEADER } from '../ownerProof.js';
import type { TasksServer } from '../server.js';
import { ConnectionGuard, DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './connectionGuard.js';
import { Authenticator, HostCheck, type Caller } from './httpAuth.js';
import { AcceptCache, readBody } from './httpBody.js';
import { allFinished, replyError } from './httpReply.js';
import { HttpSessions, SESSION_HEADER, type HttpSession } from './httpSessions.js';
import { isLoopbackHost, originAllowed } from './guards.js';
import { McpPost, type PostEndpoint } from './mcpPost.js';
import { DEFAULT_SESSION_LIMITS } from './sessionLimits.js';
import { REPLAY_LIMITS, type ReplayLimits } from './sseReplay.js';
import { dispatchPost } from '../mcp/dispatch.js';
import { PROTOCOL_2025_VERSIONS } from '../contract.js';

export interface HttpOptions {
    host: string;
    port: number;
    /** Clients must present `Authorization: Bearer <token>`; without it the endpoint is open to local processes. */
    token?: string;
    /** More accepted client tokens, each a distinct principal (with `token`, the set of client credentials). */
    tokens?: string[];
    /** A distinct credential that sees and cancels every client's tasks (the extension's view). */
    ownerToken?: string;
    bodyLimitBytes: number;
    /** HTTP sessions with no request and no open stream for this long are closed. */
    sessionIdleMs: number;
    /** Accept only the owner credential (the stdio mode's side door for the launching editor). */
    ownerOnly?: boolean;
    /** Allow a non-loopback bind (requires a token) and skip the Host check. */
    allowRemote?: boolean;
    /** What a task is bound to: the HTTP session (default), or the client's credential (shared stores). */
    bindTo?: 'session' | 'principal';
    keepAliveMs?: number;
    /** Open connections at most (see ConnectionGuard); the default 512. */
    maxConnections?: number;
    /** Requests of one client credential whose body is still arriving (see ConnectionGuard); the default 32. */
    maxPendingBodies?: number;
    /** The handshake and body limits of connections (tests shorten them). */
    connectionLimits?: Partial<ConnectionLimits>;
    /** HTTP sessions one client credential may hold (see SessionLimiter); the default 64. */
    maxSessions?: number;
    /** New HTTP sessions one client credential may open a minute; the default 300. */
    sessionsPerMinute?: number;
    /** The timers of the sweep, keep-alives and shutdown; real time unless a test drives it. */
    clock?: Clock;
    /**
     * What each session keeps so that a client can resume a stream (REPLAY_LIMITS unless given;
     * tests shorten them). false: streams carry no event ids and none is resumed (the bench's
     * comparison, what a server without an event store does).
     */
    replay?: Partial<ReplayLimits> | false;
}

export interface HttpHandle {
    url: string;
    port: number;
    server: Server;
    readonly sessionCount: number;
    /** Stops accepting connections; open streams stay until close(). */
    stopAccepting(): void;
    close(): Promise<void>;
}

/** How long close() waits for responses in progress before cutting the connections. */
const CLOSE_GRACE_MS = 2000;
/**
 * Node's own limits, behind the ConnectionGuard's (which cuts a body not whole 10 s after its
 * headers): a keep-alive connection idle between requests closes after 5 s, a request's headers
 * must arrive within 10 s and the whole request within 30 s; Node checks these every second (its
 * default, 30 s, let a stalled peer stay up to that much longer).
 */
const KEEP_ALIVE_TIMEOUT_MS = 5000;
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const CONNECTIONS_CHECK_MS = 1000;

/** Streamable HTTP (MCP 2025-11-25) on node:http: POST for messages, GET for the standalone stream, DELETE to end. */
export class HttpTransportServer implements PostEndpoint {
    readonly server: Server;
    readonly sessions: HttpSessions;
    private readonly auth: Authenticator;
    private readonly hosts: HostCheck;
    private readonly accepts = new AcceptCache();
    private readonly unfinished = new Set<ServerResponse>();
    private readonly clock: Clock;
    private readonly keepAliveMs: number;
    private readonly guard: ConnectionGuard;

    constructor(
        private readonly core: TasksServer,
        private readonly options: HttpOptions,
    ) {
        if (!isLoopbackHost(options.host) && !(options.allowRemote && options.token)) {
            throw new Error(`Refusing to listen on non-loopback address ${options.host}: pass --allow-remote together with --token to expose the server`);
        }
        const clientTokens = [...new Set([options.token, ...(options.tokens ?? [])])].filter((t): t is string => Boolean(t));
        this.auth = new Authenticator(clientTokens, options.ownerToken, options.ownerOnly ?? false);
        this.hosts = new HostCheck(options.host);
        this.clock = options.clock ?? systemClock;
        this.keepAliveMs = options.keepAliveMs ?? 25_000;
        this.hosts.port = options.port;
        const limits = {
            ...DEFAULT_SESSION_LIMITS,
            ...(options.maxSessions ? { maxSessions: options.maxSessions } : {}),
            ...(options.sessionsPerMinute ? { sessionsPerMinute: options.sessionsPerMinute } : {}),
        };
        const replay = options.replay === false ? false : { ...REPLAY_LIMITS, ...options.replay };
        this.sessions = new HttpSessions(core, { idleMs: options.sessionIdleMs, bindTo: options.bindTo ?? 'session', limits, replay }, core.log, this.clock);
        this.server = createServer({ connectionsCheckingInterval: CONNECTIONS_CHECK_MS, headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS }, this.handle);
        this.server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
        this.guard = new ConnectionGuard(
            this.server,
            {
                ...DEFAULT_CONNECTION_LIMITS,
                ...options.connectionLimits,
                ...(options.maxConnections ? { maxConnections: options.maxConnections } : {}),
                ...(options.maxPendingBodies ? { maxPendingBodies: options.maxPendingBodies } : {}),
            },
            this.clock,
        );
    }

    get port(): number {
        return this.hosts.port;
    }

    /** Open connections (the guard's count). */
    get connections(): number {
        return this.guard.connections;
    }

    async listen(): Promise<void> {
        const { server } = this;
        await new Promise<void>((resolve, reject) => {
            server.once('error', reject);
            server.listen(this.options.port, this.options.host, () => {
                server.off('error', reject);
                resolve();
            });
        });
        this.hosts.port = (server.address() as AddressInfo).port;
    }

    /** Closes every session, then gives answers already on their way a moment before cutting the connections. */
    async close(): Promise<void> {
        this.sessions.close('Server shutting down');
        this.guard.close();
        this.server.close();
        // Answers already on their way (a tasks/result the shutdown just woke, a stream's last
        // notifications) get a moment to reach the client before the connections are cut.
        await allFinished(this.unfinished, CLOSE_GRACE_MS, this.clock);
        this.server.closeAllConnections();
    }

    /** Every request: the endpoint, Host/Origin and credential checks, then the method's handler. */
    private readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
        this.unfinished.add(res);
        res.on('close', () => this.unfinished.delete(res));
        const url = req.url ?? '/';
        const query = url.indexOf('?');
        const path = query < 0 ? url : url.slice(0, query);
        if (path !== '/mcp') {
            req.resume();
            replyError(res, 404, ErrorCodes.InvalidRequest, 'Not found: the MCP endpoint is /mcp');
            return;
        }
        if ((!this.options.allowRemote && !this.hosts.allowed(req.headers.host)) || !originAllowed(req.headers.origin)) {
            req.resume();
            replyError(res, 403, ErrorCodes.InvalidRequest, 'Forbidden: Host or Origin is not an allowed loopback address');
            return;
        }
        const proof = this.auth.ownerProof(req, this.port);
        if (proof !== undefined) {
            req.resume();
            res.writeHead(204, { [OWNER_PROOF_HEADER]: proof, 'cache-control': 'no-store' }).end();
            return;
        }
        const caller = this.auth.authenticate(req);
        if (!caller) {
            req.resume();
            replyError(res, 401, ErrorCodes.InvalidRequest, 'Unauthorized: a valid Authorization: Bearer token is required', { 'www-authenticate': 'Bearer' });
            return;
        }
        this.guard.trust(req.socket);
        switch (req.method) {
            case 'POST':
                try {
                    this.handlePost(req, res, caller);
                } catch (err) {
                    this.fail(req, res, err);
                }
                break;
            case 'GET':
                this.handleGet(req, res, caller);
                break;
            case 'DELETE':
                this.handleDelete(req, res, caller);
                break;
            default:
                req.resume();
                replyError(res, 405, ErrorCodes.InvalidRequest, 'Method Not Allowed', { allow: 'GET, POST, DELETE' });
        }
    };

    handlePost(req: IncomingMessage, res: ServerResponse, caller: Caller): void {
        const contentType = req.headers['content-type'] ?? '';
        if (!contentType.toLowerCase().includes('application/json')) {
            req.resume();
            replyError(res, 415, ErrorCodes.InvalidRequest, 'Unsupported Media Type: Content-Type must be application/json');
            return;
        }
        const { json, sse } = this.accepts.parse(req.headers.accept ?? '*/*');
        if (!json && !sse) {
            req.resume();
            replyError(res, 406, ErrorCodes.InvalidRequest, 'Not Acceptable: Accept must include application/json or text/event-stream');
            return;
        }
        readBody(req, res, caller, this.options.bodyLimitBytes, this.clock, this.guard, body => {
            if (body !== undefined) {
                try {
                    this.receive(req, res, caller, body, json, sse);
                } catch (err) {
                    this.fail(req, res, err);
                }
            }
        });
    }

    handleGet(req: IncomingMessage, res: ServerResponse, caller: Caller): void {
        if (!(req.headers.accept ?? '').toLowerCase().includes('text/event-stream')) {
            replyError(res, 406, ErrorCodes.InvalidRequest, 'Not Acceptable: GET needs Accept: text/event-stream');
            return;
        }
        const entry = this.lookup(req, res, caller);
        if (!entry) {
            return;
        }
        const lastEventId = req.headers['last-event-id'];
        if (typeof lastEventId === 'string' && lastEventId !== '' && entry.resumable) {
            // A resume takes over its stream even while an older connection of it looks open:
            // the client would not resume a connection it still reads.
            const refused = entry.resume(lastEventId, res);
            if (refused !== undefined) {
                replyError(res, 400, ErrorCodes.InvalidRequest, `Bad Request: ${refused}`);
                return;
            }
        } else if (entry.stream?.open) {
            replyError(res, 409, ErrorCodes.InvalidRequest, 'Conflict: this session already has an open GET stream');
            return;
        } else {
            entry.listen(res, this.keepAliveMs);
        }
        entry.session.rpc.flush();
    }

    handleDelete(req: IncomingMessage, res: ServerResponse, caller: Caller): void {
        const entry = this.lookup(req, res, caller);
        if (entry) {
            this.sessions.end(entry, 'Session closed by the client');
            res.writeHead(200).end();
        }
    }

    /** One POSTed message: dispatch picks its revision (a session's, or a 2026-07-28 one answered alone). */
    private receive(req: IncomingMessage, res: ServerResponse, caller: Caller, body: string, acceptsJson: boolean, acceptsSse: boolean): void {
        const decoded = decodeFrame(body);
        if (decoded.kind === 'unparsable') {
            replyError(res, 400, ErrorCodes.ParseError, 'Parse error: the body is not valid JSON');
            return;
        }
        if (decoded.kind === 'invalid') {
            // Echo the id when it could be read, as stdio does.
            const { code, message } = invalidMessageError(decoded);
            replyError(res, 400, code, message, {}, decoded.id);
            return;
        }
        dispatchPost(this.core.services, decoded.message, new McpPost(this, req, res, caller, acceptsJson, acceptsSse));
    }

    /** The session a request names, checked against its caller and protocol version; undefined once refused. */
    lookup(req: IncomingMessage, res: ServerResponse, caller: Caller): HttpSession | undefined {
        const id = req.headers[SESSION_HEADER];
        if (typeof id !== 'string' || id === '') {
            replyError(res, 400, ErrorCodes.InvalidRequest, 'Bad Request: Mcp-Session-Id header is required (send initialize first)');
            return undefined;
        }
        const entry = this.sessions.get(id);
        // Another credential's session is reported exactly like a missing one.
        if (!entry || entry.principal !== caller.principal) {
            replyError(res, 404, -32001, 'Session not found: initialize a new session');
            return undefined;
        }
        const version = req.headers['mcp-protocol-version'];
        if (typeof version === 'string' && !PROTOCOL_2025_VERSIONS.includes(version)) {
            replyError(res, 400, ErrorCodes.InvalidRequest, `Unsupported MCP-Protocol-Version: ${version}`);
            return undefined;
        }
        entry.touch();
        return entry;
    }

    private fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
        this.core.log.error(`[http] ${req.method} failed: ${errorMessage(err)}`);
        replyError(res, 500, ErrorCodes.InternalError, 'Internal error');
    }
}

/** Starts a Streamable HTTP endpoint for `core`. */
export async function listenHttp(core: TasksServer, options: HttpOptions): Promise<HttpHandle> {
    const http = new HttpTransportServer(core, options);
    try {
        await http.listen();
    } catch (err) {
        http.sessions.close('The server could not listen');
        throw err;
    }
    const { server, port } = http;
    const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host;
    return {
        url: `http://${hostForUrl}:${port}/mcp`,
        port,
        server,
        get sessionCount() {
            return http.sessions.size;
        },
        stopAccepting: () => server.close(),
        close: () => http.close(),
    };
}
