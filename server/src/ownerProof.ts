import { createHmac } from 'node:crypto';

/**
 * How an owner endpoint proves it is the server the extension launched before the extension sends
 * it the owner token: the extension sends a fresh random challenge, unauthenticated; the server
 * answers with an HMAC of it (and of its own port) keyed by the owner token. Only a process that
 * holds the token can answer; a listener that grabbed a freed port cannot, and a live server's
 * answer is bound to its own port, so it cannot be relayed from another port.
 */
export const OWNER_CHALLENGE_HEADER = 'mcp-tasks-owner-challenge';
export const OWNER_PROOF_HEADER = 'mcp-tasks-owner-proof';

/** 128 to 768 bits of base64url: enough to be fresh, small enough to bound the work. */
const CHALLENGE_SHAPE = /^[A-Za-z0-9_-]{22,128}$/;

export function isOwnerChallenge(value: unknown): value is string {
    return typeof value === 'string' && CHALLENGE_SHAPE.test(value);
}

export function ownerProof(ownerToken: string, port: number, challenge: string): string {
    return createHmac('sha256', ownerToken).update(`mcp-tasks owner proof v1\n${port}\n${challenge}`).digest('base64url');
}
