import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { InFlight } from '../rpc/inFlight.js';
import { LeanStdioTransport } from './leanStdio.js';
import { ErrorCode, McpError } from './sdkClient.js';

/** A downstream's progress update, as its notification carries it (checked). */
export interface DirectProgress {
    progress: number;
    total?: number;
    message?: string;
}

/** Our ids: strings, so they never meet the SDK Client's numeric ones on the same connection. */
const ID_PREFIX = 'gateway-call-';

/** One request sent on the lean path: its answer, its progress listener, and how to withdraw it. */
export class DirectCall {
    readonly result: Promise<Record<string, unknown>>;
    /** @internal */
    resolve!: (result: Record<string, unknown>) => void;
    /** @internal */
    reject!: (err: unknown) => void;

    /** Its id on the downstream connection, also its progress token when it takes progress. */
    readonly id: string;

    constructor(
        private readonly requests: DirectRequests,
        /** @internal the number in its id */
        readonly seq: number,
        /** @internal */
        readonly onProgress: ((update: DirectProgress) => void) | undefined,
    ) {
        this.id = `${ID_PREFIX}${seq}`;
        this.result = new Promise((resolve, reject) => {
            this.resolve = resolve;
            this.reject = reject;
        });
    }

    /**
     * Withdraws the call if it still waits: the downstream hears notifications/cancelled (as the
     * Client would send it), and `result` rejects with `reason`. With `onEnd`, the server's late
     * answer to it (`answered`: true) or the connection's end (false) is still heard, once, by `onEnd`; the returned
     * function stops listening.
     */
    cancel(reason: unknown, onEnd?: (answered: boolean) => void): () => void {
        return this.requests.cancel(this, reason, onEnd);
    }
}

/**
 * A lean path for the gateway's plain calls: the request goes on the downstream's transport itself,
 * and its response and progress are taken off before the SDK Client sees them. Saves, per call,
 * what Client.request adds to the same wire exchange (measured at about a third of the gateway's
 * CPU per wrapped echo): its zod checks of the response (as a response, then against the result
 * schema) and of each progress notification, its timeout timer, and its per-request handler,
 * abort and progress bookkeeping. The request's id is its progress token, so one map finds both.
 * Everything else on the connection (the downstream's requests and notifications, the Client's own
 * requests) still goes through the Client. The result is checked only for being an object, as the
 * Client's ResultSchema did; the host validates what it reads.
 */
export class DirectRequests {
    private next = 0;
    private readonly pending = new CallSlots();
    private closed = false;
    /** Withdrawn calls whose late answer is waited for (DirectCall.cancel's onEnd), by id. */
    private readonly withdrawn = new Map<string, (answered: boolean) => void>();

    /** Call once the Client is connected: it has set the transport's handlers, which this wraps. */
    constructor(private readonly transport: Transport) {
        const toClient = transport.onmessage;
        transport.onmessage = (message, extra) => {
            if (!this.take(message)) {
                toClient?.(message, extra);
            }
        };
        const onclose = transport.onclose;
        transport.onclose = () => {
            this.close();
            onclose?.();
        };
    }

    /**
     * Sends a request; the call's result resolves with the downstream's result, or rejects with
     * its error (an McpError, as the Client's would), with McpError ConnectionClosed when the
     * connection ends first, or with the reason given to its cancel. With `onProgress`, the request asks for progress
     * (`_meta.progressToken`, set on `params`), and each update it sends goes there until it ends.
     */
    start(method: string, params: Record<string, unknown>, onProgress?: (update: DirectProgress) => void): DirectCall {
        const call = new DirectCall(this, ++this.next, onProgress);
        if (this.opened(call)) {
            if (onProgress) {
                params._meta = { progressToken: call.id };
            }
            this.sent(call, this.transport.send({ jsonrpc: '2.0', id: call.id, method, params }));
        }
        return call;
    }

    /**
     * A plain `tools/call`, asking for progress when given `onProgress`: start('tools/call', { name,
     * arguments }, onProgress). On a stdio downstream its line is written from pieces
     * (toolCallLine), which saves most of JSON.stringify's cost per call: only the arguments are serialised.
     */
    callTool(name: string, args: Record<string, unknown>, onProgress: ((update: DirectProgress) => void) | undefined): DirectCall {
        const { transport } = this;
        if (!(transport instanceof LeanStdioTransport)) {
            return this.start('tools/call', { name, arguments: args }, onProgress);
        }
        const call = new DirectCall(this, ++this.next, onProgress);
        if (this.opened(call)) {
            const { id } = call;
            // Not running (sendLine declines): send refuses it as the SDK transport does.
            const written = transport.sendLine(toolCallLine(id, name, args, onProgress !== undefined), true) ?? transport.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
            this.sent(call, written);
        }
        return call;
    }

    /** Whether a new call waits for its answer: not once the connection has closed (it has failed then). */
    private opened(call: DirectCall): boolean {
        if (this.closed) {
            call.reject(connectionClosed());
            return false;
        }
        this.pending.add(call);
        return true;
    }

    /** A write that fails fails its call. */
    private sent(call: DirectCall, written: Promise<void>): void {
        written.catch((err: unknown) => {
            if (this.pending.remove(call)) {
                call.reject(err);
            }
        });
    }

    /** A request (as start) withdrawn when `signal` aborts, its result rejecting with the signal's reason (for a 2026-07-28 downstream, client2026.ts). */
    request(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
        if (signal.aborted) {
            return Promise.reject(signal.reason);
        }
        const call = this.start(method, params);
        const onAbort = () => call.cancel(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        return call.result.finally(() => signal.removeEventListener('abort', onAbort));
    }

    /** @internal DirectCall.cancel */
    cancel(call: DirectCall, reason: unknown, onEnd?: (answered: boolean) => void): () => void {
        if (!this.pending.remove(call)) {
            // It has ended already: answered, or failed with its connection.
            onEnd?.(!this.closed);
            return () => undefined;
        }
        if (onEnd) {
            this.withdrawn.set(call.id, onEnd);
        }
        this.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.id, reason: String(reason) } }).catch(() => undefined);
        call.reject(reason);
        return () => this.withdrawn.delete(call.id);
    }

    /** The connection ended: every request still waiting fails as the Client's would. */
    close(): void {
        this.closed = true;
        const waiting = this.pending.takeAll();
        for (const waiter of waiting) {
            waiter.reject(connectionClosed());
        }
        const ended = [...this.withdrawn.values()];
        this.withdrawn.clear();
        for (const onEnd of ended) {
            onEnd(false);
        }
    }

    /** Whether `message` was a response to, or progress of, one of ours (handled here). */
    private take(message: JSONRPCMessage): boolean {
        if ('method' in message) {
            if (message.method !== 'notifications/progress') {
                return false;
            }
            const params = message.params as { progressToken?: unknown } | undefined;
            const token = params?.progressToken;
            if (typeof token !== 'string' || !token.startsWith(ID_PREFIX)) {
                return false;
            }
            // After its call ended, an update has nowhere to go (the Client knows no such token either).
            const update = progressUpdate(params!);
            if (update) {
                this.pending.find(token)?.onProgress?.(update);
            }
            return true;
        }
        const id = (message as { id?: unknown }).id;
        if (typeof id !== 'string' || !id.startsWith(ID_PREFIX)) {
            return false;
        }
        const waiter = this.pending.find(id);
        if (!waiter) {
            const onEnd = this.withdrawn.get(id);
            if (!onEnd) {
                return false;
            }
            this.withdrawn.delete(id);
            onEnd(true);
            return true;
        }
        this.pending.remove(waiter);
        settle(waiter, message as { result?: unknown; error?: unknown });
        return true;
    }
}

/**
 * The calls waiting for an answer, by the number in their id, in the table the gateway keeps its
 * requests in (rpc/inFlight.ts: not a Map, which under per-call churn keeps every call alive for
 * the GC; nor a dictionary object, which interns each id string).
 */
class CallSlots {
    private readonly calls = new InFlight<DirectCall>();

    add(call: DirectCall): void {
        this.calls.set(call.seq, call);
    }

    /** The waiting call with this id, if any. */
    find(id: string): DirectCall | undefined {
        const seq = seqOf(id);
        const call = seq < 0 ? undefined : this.calls.get(seq);
        return call?.id === id ? call : undefined;
    }

    /** Whether the call was waiting (and no longer is). */
    remove(call: DirectCall): boolean {
        return this.calls.get(call.seq) === call && this.calls.delete(call.seq);
    }

    /** Empties the table, returning what waited. */
    takeAll(): DirectCall[] {
        const waiting = this.calls.values();
        this.calls.clear();
        return waiting;
    }
}

/** N of an id `gateway-call-N`, or -1 for any other id. */
function seqOf(id: string): number {
    if (!id.startsWith(ID_PREFIX) || id.length === ID_PREFIX.length || id.length > ID_PREFIX.length + 15) {
        return -1;
    }
    let seq = 0;
    for (let i = ID_PREFIX.length; i < id.length; i++) {
        const digit = id.charCodeAt(i) - 48;
        if (digit < 0 || digit > 9) {
            return -1;
        }
        seq = seq * 10 + digit;
    }
    return seq;
}

/**
 * A tools/call request's JSON text, as JSON.stringify writes `{ jsonrpc, id, method, params: {
 * name, arguments, _meta: { progressToken: id } } }` (without `_meta` when it asks for no
 * progress): only the name and arguments are serialised (our ids need no escaping). Measured
 * alone: about a quarter of stringifying the whole message.
 */
export function toolCallLine(id: string, name: string, args: Record<string, unknown>, asksProgress: boolean): string {
    const named = JSON.stringify(name);
    const serialised = JSON.stringify(args);
    return asksProgress
        ? `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":${named},"arguments":${serialised},"_meta":{"progressToken":"${id}"}}}`
        : `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":${named},"arguments":${serialised}}}`;
}

function connectionClosed(): McpError {
    return new McpError(ErrorCode.ConnectionClosed, 'Connection closed');
}

/** The update a progress notification carries, or undefined when it is malformed (the Client's schema would have dropped it too). */
function progressUpdate(params: Record<string, unknown>): DirectProgress | undefined {
    const { progress, total, message } = params;
    if (typeof progress !== 'number' || (total !== undefined && typeof total !== 'number') || (message !== undefined && typeof message !== 'string')) {
        return undefined;
    }
    return { progress, total, message };
}

function settle(waiter: DirectCall, message: { result?: unknown; error?: unknown }): void {
    if (message.error !== undefined) {
        // Untrusted: a null or non-object error is an error without code or message.
        const { code, message: text, data } = (message.error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
        waiter.reject(new McpError(typeof code === 'number' ? code : ErrorCode.InternalError, typeof text === 'string' ? text : 'Unknown error', data));
    } else if (message.result !== null && typeof message.result === 'object' && !Array.isArray(message.result)) {
        waiter.resolve(message.result as Record<string, unknown>);
    } else {
        waiter.reject(new Error('its answer carried no result object'));
    }
}
