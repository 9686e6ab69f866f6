import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function isLoopbackHost(host: string): boolean {
    return LOOPBACK_NAMES.has(host) || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * DNS-rebinding protection: the Host header must name a loopback address with our port. `bound`
 * is the loopback address the server listens on (say 127.0.0.2), which its own URL names.
 */
export function hostAllowed(hostHeader: string | undefined, port: number, bound?: string): boolean {
    if (!hostHeader) {
        return false;
    }
    const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostHeader.toLowerCase());
    if (!match) {
        return false;
    }
    const [, name, portText] = match;
    return (LOOPBACK_NAMES.has(name!) || name === bound) && Number(portText ?? 80) === port;
}

/** A loopback bind address as a Host header names it (IPv6 in brackets), or undefined for any other. */
export function hostName(bindHost: string): string | undefined {
    if (!isLoopbackHost(bindHost)) {
        return undefined;
    }
    const lower = bindHost.toLowerCase();
    return lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower;
}

/** Browsers send Origin; only pages served from a loopback origin may talk to us. */
export function originAllowed(origin: string | undefined): boolean {
    if (origin === undefined) {
        return true;
    }
    try {
        const url = new URL(origin);
        return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname);
    } catch {
        return false;
    }
}

function digest(secret: string): Buffer {
    return createHash('sha256').update(secret).digest();
}

/** Compares secrets in constant time (hashing first makes the lengths equal). */
export function secretMatches(presented: string, expected: string): boolean {
    return timingSafeEqual(digest(presented), digest(expected));
}

/**
 * The accepted secrets, hashed once: a request then costs one hash of what it presents, compared
 * in constant time with every secret (no early exit). `match` returns the index of the secret that
 * matched, or -1.
 */
export class SecretSet {
    private readonly digests: Buffer[];

    constructor(readonly secrets: readonly string[]) {
        this.digests = secrets.map(digest);
    }

    get size(): number {
        return this.secrets.length;
    }

    match(presented: string): number {
        const presentedDigest = digest(presented);
        let found = -1;
        for (let i = 0; i < this.digests.length; i++) {
            if (timingSafeEqual(presentedDigest, this.digests[i]!) && found < 0) {
                found = i;
            }
        }
        return found;
    }
}

export function bearerToken(req: IncomingMessage): string | undefined {
    const header = req.headers.authorization;
    if (!header) {
        return undefined;
    }
    const match = /^Bearer\s+(.+)$/i.exec(header);
    return match ? match[1]!.trim() : undefined;
}

/** A stable, non-reversible name for a credential, so bindings never store the token itself. */
export function principalOf(token: string): string {
    return createHash('sha256').update('mcp-tasks-principal\0' + token).digest('base64url').slice(0, 22);
}
