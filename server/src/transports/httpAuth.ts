import type { IncomingMessage } from 'node:http';
import { isOwnerChallenge, OWNER_CHALLENGE_HEADER, ownerProof } from '../ownerProof.js';
import { bearerToken, hostAllowed, hostName, principalOf, SecretSet } from './guards.js';

/** Who sent an HTTP request: the principal its sessions and tasks belong to. */
export interface Caller {
    principal: string;
    isOwner: boolean;
    /** No token at all (a server without --token): every such caller is this one. */
    anonymous?: boolean;
}

const OWNER: Caller = { principal: 'owner', isOwner: true };
const ANONYMOUS: Caller = { principal: 'anonymous', isOwner: false, anonymous: true };

/**
 * Maps a request's bearer token to its Caller. Callers are immutable, so each credential's is made
 * once, and each secret hashed once.
 */
export class Authenticator {
    private readonly owner?: SecretSet;
    private readonly clients: SecretSet;
    private readonly clientCallers: Caller[];

    constructor(
        clientTokens: string[],
        private readonly ownerToken: string | undefined,
        private readonly ownerOnly: boolean,
    ) {
        this.owner = ownerToken ? new SecretSet([ownerToken]) : undefined;
        this.clients = new SecretSet(clientTokens);
        this.clientCallers = clientTokens.map(token => ({ principal: principalOf(token), isOwner: false }));
    }

    /**
     * The answer to an owner challenge (see ownerProof.ts), or undefined when the request carries
     * none or this server has no owner token. Needs no credential: it proves, it grants nothing.
     */
    ownerProof(req: IncomingMessage, port: number): string | undefined {
        const challenge = req.headers[OWNER_CHALLENGE_HEADER];
        return this.ownerToken && isOwnerChallenge(challenge) ? ownerProof(this.ownerToken, port, challenge) : undefined;
    }

    /** The caller, or undefined when the request must be refused with 401. */
    authenticate(req: IncomingMessage): Caller | undefined {
        const presented = bearerToken(req);
        if (this.owner && presented && this.owner.match(presented) === 0) {
            return OWNER;
        }
        if (this.ownerOnly) {
            return undefined;
        }
        if (this.clients.size === 0) {
            return ANONYMOUS;
        }
        const index = presented ? this.clients.match(presented) : -1;
        return index >= 0 ? this.clientCallers[index] : undefined;
    }
}

/**
 * Host headers already found to name us; a client sends the same one on every request. Loopback
 * names and the loopback address actually bound (its own URL's) are accepted, with our port.
 */
export class HostCheck {
    private readonly known = new Set<string>();
    private readonly bound?: string;
    port = 0;

    constructor(bindHost?: string) {
        this.bound = bindHost === undefined ? undefined : hostName(bindHost);
    }

    allowed(host: string | undefined): boolean {
        if (host !== undefined && this.known.has(host)) {
            return true;
        }
        const ok = hostAllowed(host, this.port, this.bound);
        if (ok && host !== undefined && this.known.size < 64) {
            this.known.add(host);
        }
        return ok;
    }
}
