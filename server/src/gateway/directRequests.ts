import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ToolContext } from '../tools/types.js';
import { ErrorCode, McpError } from './sdkClient.js';

interface Pending {
    resolve(result: Record<string, unknown>): void;
    reject(err: unknown): void;
}

/** Our ids: strings, so they never meet the SDK Client's numeric ones on the same connection. */
const ID_PREFIX = 'gateway-call-';

/**
 * A lean path for the gateway's plain calls: the request goes on the downstream's transport itself,
 * and its response is taken off before the SDK Client sees it. Saves, per call, what Client.request
 * adds to the same wire exchange (measured at about a third of the gateway's CPU per wrapped echo):
 * its zod checks of the response (as a response, then against the result schema), its timeout
 * timer, and its per-request handler, abort and progress bookkeeping. Everything else on the
 * connection (the downstream's requests and notifications, the Client's own requests) still goes
 * through the Client. The result is checked only for being an object, as the Client's ResultSchema
 * did; the host validates what it reads.
 */
export class DirectRequests {
    private next = 0;
    private readonly pending = new Map<string, Pending>();
    private closed = false;

    /** Call once the Client is connected: it has set the transport's handlers, which this wraps. */
    constructor(private readonly transport: Transport) {
        const toClient = transport.onmessage;
        transport.onmessage = (message, extra) => {
            const id = (message as { id?: unknown }).id;
            if (typeof id === 'string' && id.startsWith(ID_PREFIX) && !('method' in message)) {
                const waiter = this.pending.get(id);
                if (waiter) {
                    this.pending.delete(id);
                    settle(waiter, message as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } });
                    return;
                }
            }
            toClient?.(message, extra);
        };
        const onclose = transport.onclose;
        transport.onclose = () => {
            this.close();
            onclose?.();
        };
    }

    /**
     * Sends a request and resolves with its result, or rejects with the downstream's error (an
     * McpError, as the Client would), with McpError ConnectionClosed when the connection ends
     * first, or with the stop reason once `stopped` rejects (the downstream then hears
     * notifications/cancelled, as the Client would send it). `stopped` rejects when the call is
     * stopped and may stay pending forever otherwise (see untilStopped).
     */
    request(method: string, params: Record<string, unknown>, stopped: Promise<unknown>): Promise<Record<string, unknown>> {
        if (this.closed) {
            return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
        }
        const id = `${ID_PREFIX}${++this.next}`;
        return new Promise((resolve, reject) => {
            this.pending.set(id, { resolve, reject });
            stopped.then(undefined, (reason: unknown) => {
                if (this.pending.delete(id)) {
                    this.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: String(reason) } }).catch(() => undefined);
                    reject(reason);
                }
            });
            this.transport.send({ jsonrpc: '2.0', id, method, params }).catch((err: unknown) => {
                if (this.pending.delete(id)) {
                    reject(err);
                }
            });
        });
    }

    /** The connection ended: every request still waiting fails as the Client's would. */
    close(): void {
        this.closed = true;
        const waiting = [...this.pending.values()];
        this.pending.clear();
        for (const waiter of waiting) {
            waiter.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
        }
    }
}

function settle(waiter: Pending, message: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } }): void {
    if (message.error !== undefined) {
        const { code, message: text, data } = message.error;
        waiter.reject(new McpError(typeof code === 'number' ? code : ErrorCode.InternalError, typeof text === 'string' ? text : 'Unknown error', data));
    } else if (message.result !== null && typeof message.result === 'object' && !Array.isArray(message.result)) {
        waiter.resolve(message.result as Record<string, unknown>);
    } else {
        waiter.reject(new Error('its answer carried no result object'));
    }
}

/** setTimeout's largest delay. */
const LONGEST_SLEEP_MS = 2 ** 31 - 1;

/**
 * A promise that rejects with the stop reason when the call of `ctx` is stopped (cancelled,
 * expired, shut down) and stays pending otherwise. A task waits in its own sleep, which needs no
 * AbortController or signal listener (about a kilobyte each per running task); a plain call's
 * signal dies with its request, so a listener there is what it costs anyway.
 */
export function untilStopped(ctx: ToolContext): Promise<never> {
    const stopped = ctx.taskId === undefined ? onAbort(ctx.signal) : sleepOn(ctx);
    // Handled here too: a request that never went out leaves nobody else listening.
    stopped.catch(() => undefined);
    return stopped;
}

function onAbort(signal: AbortSignal): Promise<never> {
    return new Promise((_, reject) => {
        if (signal.aborted) {
            reject(signal.reason);
        } else {
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }
    });
}

async function sleepOn(ctx: ToolContext): Promise<never> {
    for (;;) {
        await ctx.sleep(LONGEST_SLEEP_MS);
    }
}
