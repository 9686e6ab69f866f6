/**
 * Decides whether an owner endpoint is our server before anything sends it the owner token (no
 * vscode import: unit-tested). Another local user can bind a loopback port the moment our server
 * frees it, so a URL alone proves nothing; the server must answer a fresh challenge with an HMAC
 * keyed by the token (server/src/ownerProof.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { request } from 'node:http';
import { newSecret, type OwnerAnnouncement } from '@mcp-tasks/server/contract';
import { OWNER_CHALLENGE_HEADER, OWNER_PROOF_HEADER, ownerProof } from '@mcp-tasks/server/ownerProof';

const VERIFY_TIMEOUT_MS = 5000;
/** An announcement is a URL and a pid: anything larger is not one. */
const MAX_ANNOUNCEMENT_BYTES = 4096;

/** The port of an owner URL, which must be `http://127.0.0.1:<port>/mcp`; undefined otherwise. */
export function ownerUrlPort(url: string): number | undefined {
    try {
        const parsed = new URL(url);
        const port = Number(parsed.port);
        return parsed.protocol === 'http:' && parsed.hostname === '127.0.0.1' && parsed.pathname === '/mcp' && port > 0 ? port : undefined;
    } catch {
        return undefined;
    }
}

/**
 * True when whatever listens at `url` holds `token`: it answered our fresh challenge with the HMAC
 * only the token gives. Sends no token; any failure (refused, timeout, wrong answer) is false.
 */
export function verifyOwnerEndpoint(url: string, token: string, timeoutMs = VERIFY_TIMEOUT_MS): Promise<boolean> {
    const port = ownerUrlPort(url);
    if (port === undefined) {
        return Promise.resolve(false);
    }
    const challenge = newSecret(24);
    const expected = Buffer.from(ownerProof(token, port, challenge));
    return new Promise(resolve => {
        const req = request(url, { method: 'GET', headers: { [OWNER_CHALLENGE_HEADER]: challenge }, agent: false, timeout: timeoutMs }, res => {
            res.resume();
            const proof = Buffer.from(String(res.headers[OWNER_PROOF_HEADER] ?? ''));
            resolve(res.statusCode === 204 && proof.length === expected.length && timingSafeEqual(proof, expected));
        });
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', () => resolve(false));
        req.end();
    });
}

/**
 * True when `pid` runs and belongs to this user. A pid that is gone, or that now belongs to
 * another user (EPERM), is not our server.
 */
export function processAlive(pid: number): boolean {
    try {
        return process.kill(pid, 0);
    } catch {
        return false;
    }
}

/**
 * The announcement in `file`, read without following a link, only from a small regular file of
 * ours; undefined when there is none or it is not one.
 */
export function readAnnouncement(file: string): OwnerAnnouncement | undefined {
    let fd: number;
    try {
        fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    } catch {
        return undefined;
    }
    try {
        const stat = fstatSync(fd);
        if (!stat.isFile() || stat.size > MAX_ANNOUNCEMENT_BYTES || (process.getuid && stat.uid !== process.getuid())) {
            return undefined;
        }
        const buffer = Buffer.alloc(stat.size);
        const read = readSync(fd, buffer, 0, buffer.length, 0);
        const parsed = JSON.parse(buffer.subarray(0, read).toString('utf8')) as Partial<OwnerAnnouncement>;
        return typeof parsed.url === 'string' && ownerUrlPort(parsed.url) !== undefined && Number.isInteger(parsed.pid) && parsed.pid! > 0 ? { url: parsed.url, pid: parsed.pid! } : undefined;
    } catch {
        return undefined;
    } finally {
        closeSync(fd);
    }
}
