import { errorMessage, type Logger } from '../util/log.js';
import { invalidParams } from '../rpc/errors.js';
import type { ResourceSubscriber } from '../mcp/context.js';

type Json = Record<string, unknown>;

/** Sends one request about a URI to the wrapped server that serves it (PassThrough.forwardByUri). */
export type ForwardByUri = (method: 'resources/subscribe' | 'resources/unsubscribe', params: Json, signal?: AbortSignal) => Promise<Json>;

/** Who wants a URI's `notifications/resources/updated`: the 2026-07-28 listeners that named it, and the 2025-11-25 sessions. */
interface Holders {
    listeners: number;
    /** Some 2025-11-25 session subscribed (resources/subscribe), and none has unsubscribed since. */
    session: boolean;
}

/**
 * The wrapped servers' resource subscriptions, for both revisions: a 2025-11-25 session asks with
 * resources/subscribe and resources/unsubscribe; a 2026-07-28 client names URIs in
 * subscriptions/listen (`resourceSubscriptions`) for as long as its stream is open. The wrapped
 * server is asked to subscribe when the first of them wants a URI, and to unsubscribe once none
 * does, so one client leaving never stops another's updates.
 */
export class ResourceSubscriptions implements ResourceSubscriber {
    private readonly held = new Map<string, Holders>();

    constructor(
        private readonly forward: ForwardByUri,
        private readonly log: Logger,
    ) {}

    /** A session's resources/subscribe: forwarded (the wrapped server answers it, errors included). */
    async subscribe(params: Json | undefined, signal: AbortSignal): Promise<Json> {
        const uri = uriOf(params, 'resources/subscribe');
        const result = await this.forward('resources/subscribe', params!, signal);
        this.entry(uri).session = true;
        return result;
    }

    /** A session's resources/unsubscribe: forwarded unless a listener still holds the URI. */
    async unsubscribe(params: Json | undefined, signal: AbortSignal): Promise<Json> {
        const uri = uriOf(params, 'resources/unsubscribe');
        const holders = this.held.get(uri);
        if (holders) {
            holders.session = false;
            if (holders.listeners > 0) {
                return {};
            }
            this.held.delete(uri);
        }
        return this.forward('resources/unsubscribe', params!, signal);
    }

    /** A listener's URI: subscribed downstream if nobody held it yet; rejects when no wrapped server takes it. */
    async hold(uri: string, signal: AbortSignal): Promise<() => void> {
        if (!this.held.has(uri)) {
            await this.forward('resources/subscribe', { uri }, signal);
        }
        const holders = this.entry(uri);
        holders.listeners++;
        let released = false;
        return () => {
            if (released) {
                return;
            }
            released = true;
            if (--holders.listeners === 0 && !holders.session && this.held.get(uri) === holders) {
                this.held.delete(uri);
                this.forward('resources/unsubscribe', { uri }).catch(err => this.log.debug(`[gateway] resources/unsubscribe ${uri}: ${errorMessage(err)}`));
            }
        };
    }

    /** Subscribes again to every URI someone holds (a wrapped server came back from a restart, having forgotten them). */
    renew(): void {
        for (const uri of this.held.keys()) {
            this.forward('resources/subscribe', { uri }).catch(err => this.log.debug(`[gateway] resources/subscribe ${uri} again: ${errorMessage(err)}`));
        }
    }

    private entry(uri: string): Holders {
        let holders = this.held.get(uri);
        if (!holders) {
            holders = { listeners: 0, session: false };
            this.held.set(uri, holders);
        }
        return holders;
    }
}

function uriOf(params: Json | undefined, method: string): string {
    if (typeof params?.uri !== 'string') {
        throw invalidParams(`${method} needs a uri`);
    }
    return params.uri;
}
