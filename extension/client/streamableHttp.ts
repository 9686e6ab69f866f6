// The client side of MCP's Streamable HTTP transport, as our owner connection uses it: POST each
// message (the reply is JSON or an SSE stream), one GET stream for what the server sends on its
// own, the session and protocol-version headers, and the GET stream reopened when it drops.
import { HttpHeaders } from '@mcp-tasks/server/contract';
import type { JsonRpcMessage } from './jsonRpc';
import { guardedFetch, GuardedAgent } from './guardedHttp';
import { readSse } from './sseReader';

export interface StreamOptions {
    /** The first reopen waits this long; each further one grows by `growFactor`, up to `maxMs`. */
    initialMs: number;
    growFactor: number;
    maxMs: number;
    /** Reopen attempts in a row before the connection is given up as lost. */
    maxRetries: number;
}

/** The MCP SDK's client defaults, which the owner connection used before. */
export const DEFAULT_STREAM_OPTIONS: StreamOptions = { initialMs: 1000, growFactor: 1.5, maxMs: 30_000, maxRetries: 2 };

export interface TransportEvents {
    /** Every message the server sends, decoded but not yet checked. */
    message(value: unknown): void;
    /** The session is gone (the server forgot it, or the GET stream cannot be reopened). */
    lost(reason: string): void;
    /** Something worth a debug line that the connection survives. */
    error(message: string): void;
}

/** An HTTP status the server answered with, and its JSON-RPC error text when the body had one. */
export class HttpStatusError extends Error {
    constructor(
        readonly status: number,
        detail: string,
    ) {
        super(`HTTP ${status} from the MCP Tasks server: ${detail}`);
        this.name = 'HttpStatusError';
    }
}

export function reopenDelay(attempt: number, options: StreamOptions, serverRetryMs?: number): number {
    return serverRetryMs ?? Math.min(options.initialMs * options.growFactor ** attempt, options.maxMs);
}

/** Why nothing more is sent: the server's process is gone, and its port may be someone else's. */
const PEER_GONE = 'the MCP Tasks server process has exited; nothing more is sent to its port';

export class StreamableHttpClientTransport {
    sessionId?: string;
    protocolVersion?: string;
    private readonly abort = new AbortController();
    private reopenTimer?: NodeJS.Timeout;
    private serverRetryMs?: number;

    constructor(
        private readonly url: string,
        private readonly token: string,
        private readonly events: TransportEvents,
        private readonly options: StreamOptions = DEFAULT_STREAM_OPTIONS,
        /**
         * Whether the server's process still runs, asked before each request carries the token: once
         * it has exited, another local user can take its port, and a request made before the
         * endpoint is withdrawn (a stream reopening, a periodic reconcile) would hand them the token.
         */
        private readonly peerAlive?: () => boolean,
    ) {
        this.agent = peerAlive ? new GuardedAgent(peerAlive, PEER_GONE) : undefined;
    }

    /** Set when the server's process can be watched: every new connection is checked (guardedHttp.ts). */
    private readonly agent?: GuardedAgent;

    /** A request, through the guarded agent when there is one; the Response either way. */
    private fetch(init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<Response> {
        const signal = this.abort.signal;
        return this.agent ? guardedFetch(this.url, { ...init, signal }, this.agent) : fetch(this.url, { ...init, signal, redirect: 'manual' });
    }

    get closed(): boolean {
        return this.abort.signal.aborted;
    }

    /**
     * POSTs one message. Messages in the reply go to `events.message`; resolves once the reply is
     * read to its end (for a request, its response has then arrived unless the server hung up).
     */
    async send(message: JsonRpcMessage): Promise<void> {
        if (this.peerAlive?.() === false) {
            // The request fails; the stream, which cannot reopen either, reports the connection lost.
            throw new Error(PEER_GONE);
        }
        const response = await this.fetch({
            method: 'POST',
            headers: this.headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' }),
            body: JSON.stringify(message),
        });
        const sessionId = response.headers.get(HttpHeaders.sessionId);
        if (sessionId) {
            this.sessionId = sessionId;
        }
        if (!response.ok) {
            const error = new HttpStatusError(response.status, await errorText(response));
            if (response.status === 404 && this.sessionId !== undefined && !('method' in message && message.method === 'initialize')) {
                this.events.lost('the server no longer knows this session');
            }
            throw error;
        }
        const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
        if (response.status === 202 || !response.body || !('method' in message && 'id' in message)) {
            await response.body?.cancel();
        } else if (type === 'application/json') {
            const data: unknown = await response.json();
            for (const value of Array.isArray(data) ? data : [data]) {
                this.events.message(value);
            }
        } else if (type === 'text/event-stream') {
            await this.read(response.body);
        } else {
            await response.body.cancel();
            throw new Error(`Unexpected content type from the MCP Tasks server: ${type || 'none'}`);
        }
    }

    /** Opens the GET stream; it reopens by itself when it drops, until close(). */
    openStream(attempt = 0): void {
        void this.stream(attempt);
    }

    /** Ends every exchange and stops reopening; sends nothing (the server's idle sweep ends the session). */
    close(): void {
        clearTimeout(this.reopenTimer);
        this.abort.abort();
        this.agent?.destroy();
    }

    private async stream(attempt: number): Promise<void> {
        if (this.closed) {
            return;
        }
        if (this.peerAlive?.() === false) {
            this.events.lost(PEER_GONE);
            return;
        }
        let response: Response;
        try {
            response = await this.fetch({ method: 'GET', headers: this.headers({ accept: 'text/event-stream' }) });
        } catch (err) {
            if (!this.closed) {
                this.events.error(`cannot open the event stream: ${errorMessage(err)}`);
                this.scheduleReopen(attempt + 1);
            }
            return;
        }
        if (!response.ok || !response.body) {
            const detail = await errorText(response);
            if (response.status === 405) {
                return; // The server offers no GET stream: everything comes on POST replies.
            }
            if (response.status === 404) {
                this.events.lost('the server no longer knows this session');
                return;
            }
            this.events.error(`cannot open the event stream: HTTP ${response.status} ${detail}`);
            this.scheduleReopen(attempt + 1);
            return;
        }
        try {
            await this.read(response.body);
            this.events.error('the event stream ended');
        } catch (err) {
            if (this.closed) {
                return;
            }
            this.events.error(`the event stream broke: ${errorMessage(err)}`);
        }
        // It was open: the count of failures in a row starts again.
        this.scheduleReopen(0);
    }

    private scheduleReopen(attempt: number): void {
        if (this.closed) {
            return;
        }
        if (attempt >= this.options.maxRetries) {
            this.events.lost(`the event stream could not be reopened (${attempt} attempts)`);
            return;
        }
        clearTimeout(this.reopenTimer);
        this.reopenTimer = setTimeout(() => this.openStream(attempt), reopenDelay(attempt, this.options, this.serverRetryMs));
    }

    private async read(body: ReadableStream<Uint8Array>): Promise<void> {
        for await (const event of readSse(body, ms => (this.serverRetryMs = ms))) {
            // A priming event (an id and empty data, at the start of a 2025-11-25 stream) carries no message.
            if (event.event !== 'message' || event.data === '') {
                continue;
            }
            let value: unknown;
            try {
                value = JSON.parse(event.data);
            } catch {
                this.events.error('ignoring an event that is not JSON');
                continue;
            }
            this.events.message(value);
        }
    }

    private headers(extra: Record<string, string>): Record<string, string> {
        const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, ...extra };
        if (this.sessionId) {
            headers[HttpHeaders.sessionId] = this.sessionId;
        }
        if (this.protocolVersion) {
            headers[HttpHeaders.protocolVersion] = this.protocolVersion;
        }
        return headers;
    }
}

/** The JSON-RPC error message of an error reply, else its text (cut short), else its status text. */
async function errorText(response: Response): Promise<string> {
    const text = await response.text().catch(() => '');
    try {
        const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
        if (typeof message === 'string') {
            return message;
        }
    } catch {
        // Not JSON: the text itself says it.
    }
    return text.slice(0, 500) || response.statusText;
}

function errorMessage(err: unknown): string {
    return err instanceof Error ? err.message : String(err);
}
