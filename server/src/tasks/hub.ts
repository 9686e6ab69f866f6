import type { Disposable } from './types.js';

/** Who is asking: the binding key a task is tied to, and whether this is the owner's all-tasks view. */
export interface ClientIdentity {
    clientKey: string;
    isOwner: boolean;
    clientName?: string;
    /**
     * Callers without a credential of their own (2026-07-28 over HTTP on a server without
     * --token) share this identity, so it proves nothing: its tasks are reached by id only (ids are
     * unguessable), never listed.
     */
    anonymous?: boolean;
}

export type InputCapability = 'elicitation' | 'sampling';

/** One live connection of a client to this process (an HTTP session or a stdio pipe). */
export interface ClientLink {
    readonly identity: ClientIdentity;
    supports(capability: InputCapability): boolean;
    notify(method: string, params: Record<string, unknown>, relatedTaskId?: string): void;
    /** Sends a request to the client; rejects when `signal` aborts or the link closes. */
    request(method: string, params: Record<string, unknown>, options: { relatedTaskId?: string; signal: AbortSignal }): Promise<Record<string, unknown>>;
    /** Whether this client runs owner jobs of `kind` (it said so in initialize). */
    runsJobs?(kind: string): boolean;
    readonly isClosed?: boolean;
}

/** Routes messages for a task to the connections of the client it belongs to, and to owners. */
export class ClientHub {
    private readonly byKey = new Map<string, Set<ClientLink>>();
    private readonly ownerLinks = new Set<ClientLink>();

    add(link: ClientLink): Disposable {
        if (link.identity.isOwner) {
            this.ownerLinks.add(link);
        }
        let set = this.byKey.get(link.identity.clientKey);
        if (!set) {
            set = new Set();
            this.byKey.set(link.identity.clientKey, set);
        }
        set.add(link);
        return {
            dispose: () => {
                this.ownerLinks.delete(link);
                const links = this.byKey.get(link.identity.clientKey);
                links?.delete(link);
                if (links?.size === 0) {
                    this.byKey.delete(link.identity.clientKey);
                }
            },
        };
    }

    linksFor(clientKey: string): Iterable<ClientLink> {
        return this.byKey.get(clientKey) ?? [];
    }

    /** Every link, of every client. */
    *all(): Iterable<ClientLink> {
        for (const links of this.byKey.values()) {
            yield* links;
        }
    }

    owners(): Iterable<ClientLink> {
        return this.ownerLinks;
    }

    /** An owner connection that can answer for clients that cannot. */
    pickOwner(capability: InputCapability): ClientLink | undefined {
        for (const link of this.ownerLinks) {
            if (link.supports(capability)) {
                return link;
            }
        }
        return undefined;
    }

    /** An owner connection that runs external jobs of `kind` (the editor running VS Code tasks). */
    pickJobOwner(kind: string): ClientLink | undefined {
        for (const link of this.ownerLinks) {
            if (link.runsJobs?.(kind)) {
                return link;
            }
        }
        return undefined;
    }

    /** The connection that should answer an input request for a task of `clientKey`. */
    pickFor(clientKey: string, capability: InputCapability): ClientLink | undefined {
        for (const link of this.linksFor(clientKey)) {
            if (link.supports(capability)) {
                return link;
            }
        }
        return undefined;
    }
}
