import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '../log.js';
import { ErrorCodes } from '../rpc/errors.js';
import { classify, type RequestId } from '../rpc/messages.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../rpc/protocol.js';
import type { McpSession } from '../rpc/session.js';
import type { TasksServer } from '../server.js';
import { bearerToken, hostAllowed, isLoopbackHost, originAllowed, principalOf, SecretSet } from './guards.js';
import { PostExchange, SseStream } from './sse.js';

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

interface SessionState {
    id: string;
    principal: string;
    session: McpSession;
    stream?: SseStream;
    lastSeen: number;
}

interface Caller {
    principal: string;
    isOwner: boolean;
}

const SESSION_HEADER = 'mcp-session-id';
/** How long close() waits for responses in progress before cutting the connections. */
const CLOSE_GRACE_MS = 2000;
/** How much of an oversized upload is read and dropped, and for how long, before the connection is cut. */
const LINGER_BYTES = 16 * 1024 * 1024;
const LINGER_MS = 5000;

function reply(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}, id: RequestId | null = null): void {
    if (res.headersSent) {
        res.end();
        return;
    }
    const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers });
    res.end(body);
}

/** Resolves once every response in `open` has finished (or closed), or after `timeoutMs`. */
function allFinished(open: Set<ServerResponse>, timeoutMs: number): Promise<void> {
    return new Promise(resolve => {
        const deadline = Date.now() + timeoutMs;
        const check = () => {
            if (open.size === 0 || Date.now() >= deadline) {
                resolve();
            } else {
                setTimeout(check, 10).unref();
            }
        };
        check();
    });
}

/** Streamable HTTP (MCP 2025-11-25) on node:http: POST for messages, GET for the standalone stream, DELETE to end. */
export async function listenHttp(core: TasksServer, options: HttpOptions): Promise<HttpHandle> {
    if (!isLoopbackHost(options.host) && !(options.allowRemote && options.token)) {
        throw new Error(`Refusing to listen on non-loopback address ${options.host}: pass --allow-remote together with --token to expose the server`);
    }
    const clientTokens = [...new Set([options.token, ...(options.tokens ?? [])])].filter((t): t is string => Boolean(t));
    const sessions = new Map<string, SessionState>();
    const unfinished = new Set<ServerResponse>();
    const bindTo = options.bindTo ?? 'session';
    const keepAliveMs = options.keepAliveMs ?? 25_000;
    let port = options.port;

    // Callers are immutable, so each credential's is made once, and each secret hashed once.
    const owner = options.ownerToken ? new SecretSet([options.ownerToken]) : undefined;
    const clients = new SecretSet(clientTokens);
    const OWNER: Caller = { principal: 'owner', isOwner: true };
    const ANONYMOUS: Caller = { principal: 'anonymous', isOwner: false };
    const clientCallers: Caller[] = clientTokens.map(token => ({ principal: principalOf(token), isOwner: false }));
    const authenticate = (req: IncomingMessage): Caller | undefined => {
        const presented = bearerToken(req);
        if (owner && presented && owner.match(presented) === 0) {
            return OWNER;
        }
        if (options.ownerOnly) {
            return undefined;
        }
        if (clients.size === 0) {
            return ANONYMOUS;
        }
        const index = presented ? clients.match(presented) : -1;
        return index >= 0 ? clientCallers[index] : undefined;
    };

    const lookup = (req: IncomingMessage, res: ServerResponse, caller: Caller): SessionState | undefined => {
        const id = req.headers[SESSION_HEADER];
        if (typeof id !== 'string' || id === '') {
            reply(res, 400, ErrorCodes.InvalidRequest, 'Bad Request: Mcp-Session-Id header is required (send initialize first)');
            return undefined;
        }
        const state = sessions.get(id);
        // Another credential's session is reported exactly like a missing one.
        if (!state || state.principal !== caller.principal) {
            reply(res, 404, -32001, 'Session not found: initialize a new session');
            return undefined;
        }
        const version = req.headers['mcp-protocol-version'];
        if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
            reply(res, 400, ErrorCodes.InvalidRequest, `Unsupported MCP-Protocol-Version: ${version}`);
            return undefined;
        }
        state.lastSeen = Date.now();
        return state;
    };

    const openSession = (caller: Caller): SessionState => {
        const id = randomUUID();
        const clientKey = bindTo === 'principal' && !caller.isOwner ? `principal:${caller.principal}` : `session:${id}`;
        const state = { id, principal: caller.principal, lastSeen: Date.now() } as SessionState;
        state.session = core.createSession({ clientKey, isOwner: caller.isOwner }, { standalone: () => (state.stream?.open ? state.stream : undefined) });
        sessions.set(id, state);
        return state;
    };

    const endSession = (state: SessionState, reason: string) => {
        sessions.delete(state.id);
        state.stream?.end();
        void core.endSession(state.session, reason, bindTo === 'session');
    };

    /** Reads the body, then calls `done` once: with the text, or undefined when it was refused or failed. */
    const readBody = (req: IncomingMessage, res: ServerResponse, done: (body: string | undefined) => void): void => {
        let settled = false;
        const resolve = (body: string | undefined) => {
            if (!settled) {
                settled = true;
                done(body);
            }
        };
        const chunks: Buffer[] = [];
        let size = 0;
        let refused = false;
        const refuse = () => {
            refused = true;
            chunks.length = 0;
            reply(res, 413, ErrorCodes.InvalidRequest, `Request body larger than ${options.bodyLimitBytes} bytes`);
            resolve(undefined);
            // Lingering close: drop the rest of the upload (within bounds) rather than reset the
            // connection mid-upload, which would lose the 413 before the client reads it.
            const linger = setTimeout(() => req.destroy(), LINGER_MS);
            linger.unref();
            req.once('end', () => clearTimeout(linger));
            req.once('close', () => clearTimeout(linger));
        };
        if (Number(req.headers['content-length']) > options.bodyLimitBytes) {
            refuse();
        }
        req.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (refused) {
                if (size > options.bodyLimitBytes + LINGER_BYTES) {
                    req.destroy();
                }
            } else if (size > options.bodyLimitBytes) {
                refuse();
            } else {
                chunks.push(chunk);
            }
        });
        req.on('end', () => resolve(refused ? undefined : Buffer.concat(chunks).toString('utf8')));
        req.on('error', () => resolve(undefined));
    };

    // Accept headers seen before, parsed: a client sends the same one on every request.
    const acceptCache = new Map<string, { json: boolean; sse: boolean }>();
    const parseAccept = (header: string): { json: boolean; sse: boolean } => {
        let parsed = acceptCache.get(header);
        if (!parsed) {
            const accept = header.toLowerCase();
            parsed = { json: accept.includes('application/json') || accept.includes('*/*'), sse: accept.includes('text/event-stream') || accept.includes('*/*') };
            if (acceptCache.size < 64) {
                acceptCache.set(header, parsed);
            }
        }
        return parsed;
    };

    const handlePost = (req: IncomingMessage, res: ServerResponse, caller: Caller, fail: (err: unknown) => void) => {
        const contentType = req.headers['content-type'] ?? '';
        if (!contentType.toLowerCase().includes('application/json')) {
            req.resume();
            reply(res, 415, ErrorCodes.InvalidRequest, 'Unsupported Media Type: Content-Type must be application/json');
            return;
        }
        const { json: acceptsJson, sse: acceptsSse } = parseAccept(req.headers.accept ?? '*/*');
        if (!acceptsJson && !acceptsSse) {
            req.resume();
            reply(res, 406, ErrorCodes.InvalidRequest, 'Not Acceptable: Accept must include application/json or text/event-stream');
            return;
        }
        readBody(req, res, body => {
            if (body !== undefined) {
                handleMessage(req, res, caller, body, acceptsJson, acceptsSse).catch(fail);
            }
        });
    };

    const handleMessage = async (req: IncomingMessage, res: ServerResponse, caller: Caller, body: string, acceptsJson: boolean, acceptsSse: boolean) => {
        let value: unknown;
        try {
            value = JSON.parse(body);
        } catch {
            reply(res, 400, ErrorCodes.ParseError, 'Parse error: the body is not valid JSON');
            return;
        }
        const classified = classify(value);
        if (classified.kind === 'invalid') {
            // Echo the id when it could be read, as stdio does.
            reply(res, 400, ErrorCodes.InvalidRequest, `Invalid Request: ${classified.reason}`, {}, classified.id);
            return;
        }
        let state: SessionState | undefined;
        if (classified.kind === 'request' && classified.message.method === 'initialize') {
            state = openSession(caller);
        } else {
            state = lookup(req, res, caller);
            if (!state) {
                return;
            }
        }
        if (classified.kind !== 'request') {
            if (classified.kind === 'notification') {
                state.session.handleNotification(classified.message);
            } else {
                state.session.handleResponse(classified.message);
            }
            res.writeHead(202).end();
            return;
        }
        const request = classified.message;
        const exchange = new PostExchange(res, state.id, acceptsSse, acceptsJson);
        const onClose = () => {
            if (!res.writableEnded) {
                state.session.abortRequest(request.id, 'The client closed the HTTP connection');
            }
        };
        // on, not once: 'close' comes once anyway, and once() wraps the listener on every request.
        res.on('close', onClose);
        const response = await state.session.handleRequest(request, exchange);
        res.off('close', onClose);
        state.lastSeen = Date.now();
        // What the GET stream holds (say, the status notification of the task this answers) goes out first.
        state.stream?.flush();
        exchange.finish(response);
    };

    const handleGet = (req: IncomingMessage, res: ServerResponse, caller: Caller) => {
        if (!(req.headers.accept ?? '').toLowerCase().includes('text/event-stream')) {
            reply(res, 406, ErrorCodes.InvalidRequest, 'Not Acceptable: GET needs Accept: text/event-stream');
            return;
        }
        const state = lookup(req, res, caller);
        if (!state) {
            return;
        }
        if (state.stream?.open) {
            reply(res, 409, ErrorCodes.InvalidRequest, 'Conflict: this session already has an open GET stream');
            return;
        }
        const stream = new SseStream(res, keepAliveMs);
        state.stream = stream;
        res.once('close', () => {
            if (state.stream === stream) {
                state.stream = undefined;
            }
            state.lastSeen = Date.now();
        });
        state.session.flush();
    };

    const handleDelete = (req: IncomingMessage, res: ServerResponse, caller: Caller) => {
        const state = lookup(req, res, caller);
        if (state) {
            endSession(state, 'Session closed by the client');
            res.writeHead(200).end();
        }
    };

    // Host headers already found to name us; a client sends the same one on every request.
    const knownHosts = new Set<string>();
    const hostOk = (host: string | undefined): boolean => {
        if (host !== undefined && knownHosts.has(host)) {
            return true;
        }
        const ok = hostAllowed(host, port);
        if (ok && host !== undefined && knownHosts.size < 64) {
            knownHosts.add(host);
        }
        return ok;
    };

    const server = createServer((req, res) => {
        unfinished.add(res);
        res.on('close', () => unfinished.delete(res));
        const url = req.url ?? '/';
        const query = url.indexOf('?');
        const path = query < 0 ? url : url.slice(0, query);
        if (path !== '/mcp') {
            req.resume();
            reply(res, 404, ErrorCodes.InvalidRequest, 'Not found: the MCP endpoint is /mcp');
            return;
        }
        if ((!options.allowRemote && !hostOk(req.headers.host)) || !originAllowed(req.headers.origin)) {
            req.resume();
            reply(res, 403, ErrorCodes.InvalidRequest, 'Forbidden: Host or Origin is not an allowed loopback address');
            return;
        }
        const caller = authenticate(req);
        if (!caller) {
            req.resume();
            reply(res, 401, ErrorCodes.InvalidRequest, 'Unauthorized: a valid Authorization: Bearer token is required', { 'www-authenticate': 'Bearer' });
            return;
        }
        const fail = (err: unknown) => {
            core.log.error(`[http] ${req.method} failed: ${errorMessage(err)}`);
            reply(res, 500, ErrorCodes.InternalError, 'Internal error');
        };
        switch (req.method) {
            case 'POST':
                try {
                    handlePost(req, res, caller, fail);
                } catch (err) {
                    fail(err);
                }
                break;
            case 'GET':
                handleGet(req, res, caller);
                break;
            case 'DELETE':
                handleDelete(req, res, caller);
                break;
            default:
                req.resume();
                reply(res, 405, ErrorCodes.InvalidRequest, 'Method Not Allowed', { allow: 'GET, POST, DELETE' });
        }
    });
    server.keepAliveTimeout = 65_000;

    const sweep = setInterval(
        () => {
            const cutoff = Date.now() - options.sessionIdleMs;
            for (const state of sessions.values()) {
                if (!state.stream?.open && !state.session.busy && state.lastSeen < cutoff) {
                    core.log.info(`[http] closing idle session ${state.id.slice(0, 8)}…`);
                    endSession(state, 'Session closed after being idle');
                }
            }
        },
        Math.max(50, Math.min(options.sessionIdleMs / 4, 60_000)),
    );
    sweep.unref();

    await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, options.host, () => {
            server.off('error', reject);
            resolve();
        });
    });
    port = (server.address() as AddressInfo).port;
    const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host;

    return {
        url: `http://${hostForUrl}:${port}/mcp`,
        port,
        server,
        get sessionCount() {
            return sessions.size;
        },
        stopAccepting: () => server.close(),
        close: async () => {
            clearInterval(sweep);
            for (const state of sessions.values()) {
                state.stream?.end();
                state.session.close('Server shutting down');
            }
            sessions.clear();
            server.close();
            // Answers already on their way (a tasks/result the shutdown just woke, a stream's last
            // notifications) get a moment to reach the client before the connections are cut.
            await allFinished(unfinished, CLOSE_GRACE_MS);
            server.closeAllConnections();
        },
    };
}
