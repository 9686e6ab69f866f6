import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../util/clock.js';
import { ErrorCodes } from '../rpc/errors.js';
import type { Caller } from './httpAuth.js';
import { replyError } from './httpReply.js';

/** How much of an oversized upload is read and dropped, and for how long, before the connection is cut. */
const LINGER_BYTES = 16 * 1024 * 1024;
const LINGER_MS = 5000;

/** Who watches bodies being read, to cut one that takes too long and to bound how many one caller sends at once (the ConnectionGuard). */
export interface BodyWatch {
    /** Why `caller` may not send this body now, or undefined once it is being watched. */
    bodyStarted(req: IncomingMessage, caller: Caller): string | undefined;
    bodyEnded(req: IncomingMessage): void;
}

/**
 * Reads a POST body, then calls `done` once: with the text, or undefined when it was refused
 * (413, or 429 from the watch) or failed.
 */
export function readBody(
    req: IncomingMessage,
    res: ServerResponse,
    caller: Caller,
    limitBytes: number,
    clock: Clock,
    watch: BodyWatch | undefined,
    done: (body: string | undefined) => void,
): void {
    const refusal = watch?.bodyStarted(req, caller);
    if (refusal !== undefined) {
        // Not read at all: the connection closes once the answer is out, so it is not held either.
        replyError(res, 429, ErrorCodes.LimitExceeded, refusal, { connection: 'close' });
        done(undefined);
        return;
    }
    let settled = false;
    const resolve = (body: string | undefined) => {
        if (!settled) {
            settled = true;
            watch?.bodyEnded(req);
            done(body);
        }
    };
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const refuse = () => {
        refused = true;
        chunks.length = 0;
        replyError(res, 413, ErrorCodes.InvalidRequest, `Request body larger than ${limitBytes} bytes`);
        resolve(undefined);
        // Lingering close: drop the rest of the upload (within bounds) rather than reset the
        // connection mid-upload, which would lose the 413 before the client reads it.
        const linger = clock.setTimeout(() => req.destroy(), LINGER_MS, undefined, true);
        req.once('end', () => clock.clearTimeout(linger));
        req.once('close', () => clock.clearTimeout(linger));
    };
    if (Number(req.headers['content-length']) > limitBytes) {
        refuse();
    }
    req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (refused) {
            if (size > limitBytes + LINGER_BYTES) {
                req.destroy();
            }
        } else if (size > limitBytes) {
            refuse();
        } else {
            chunks.push(chunk);
        }
    });
    req.on('end', () => resolve(refused ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(undefined));
    // A body cut before its end (a stalled upload, a client gone) ends the read too.
    req.on('close', () => resolve(undefined));
}

export interface Accepts {
    json: boolean;
    sse: boolean;
}

/** Accept headers seen before, parsed: a client sends the same one on every request. */
export class AcceptCache {
    private readonly seen = new Map<string, Accepts>();

    parse(header: string): Accepts {
        let parsed = this.seen.get(header);
        if (!parsed) {
            const accept = header.toLowerCase();
            parsed = { json: accept.includes('application/json') || accept.includes('*/*'), sse: accept.includes('text/event-stream') || accept.includes('*/*') };
            if (this.seen.size < 64) {
                this.seen.set(header, parsed);
            }
        }
        return parsed;
    }
}
