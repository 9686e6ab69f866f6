import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** How long an InputRequiredResult's requestState may be retried with. */
export const REQUEST_STATE_TTL_MS = 60 * 60 * 1000;

/** What a paused plain call carries to its retry (SEP-2322): whose call it is, and the answers so far. */
export interface PausedCall {
    /** The tool. */
    tool: string;
    /** Digest of its arguments: a state is valid only for the same call. */
    args: string;
    /** Digest of the caller's binding key: another identity cannot replay it. */
    caller: string;
    /** The input responses gathered in earlier rounds, by key. */
    answers: Record<string, unknown>;
    /** The keys the last round asked for: only their responses are taken. */
    asked: string[];
    /** When it was issued (ms since the epoch). */
    issued: number;
}

export function digest(value: unknown): string {
    return createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 22);
}

/**
 * Seals and opens requestState: the state travels with the client, signed (HMAC-SHA256) with a key
 * the server holds, so nothing is kept between rounds and a state the client changed, or one made
 * for another call or caller, is refused. Signed, not encrypted: it holds only the client's own answers.
 */
export class RequestStates {
    constructor(private readonly key: string) {}

    seal(state: PausedCall): string {
        const body = Buffer.from(JSON.stringify(state)).toString('base64url');
        return `${body}.${this.mac(body)}`;
    }

    /** The state, or undefined when it is malformed or its signature does not match. */
    open(token: string): PausedCall | undefined {
        const dot = token.indexOf('.');
        if (dot <= 0) {
            return undefined;
        }
        const body = token.slice(0, dot);
        const given = Buffer.from(token.slice(dot + 1));
        const expected = Buffer.from(this.mac(body));
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
            return undefined;
        }
        try {
            const state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as PausedCall;
            return typeof state === 'object' && state !== null && typeof state.answers === 'object' && Array.isArray(state.asked) ? state : undefined;
        } catch {
            return undefined;
        }
    }

    private mac(body: string): string {
        return createHmac('sha256', this.key).update(body).digest('base64url');
    }
}
