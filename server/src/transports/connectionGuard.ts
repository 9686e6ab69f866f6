import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Clock, ClockTimer } from '../util/clock.js';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from '../defaults.js';
import type { Caller } from './httpAuth.js';
export { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits };

/** A body being read: when it began, and the client principal it counts against (none for the owner). */
interface Reading {
    started: number;
    holder?: string;
}

/**
 * Keeps peers from holding the server's connections. Each connection is untrusted until a request
 * on it passes the Host, Origin and credential checks; untrusted ones are cut after `handshakeMs`,
 * and at the cap the oldest of them makes room for a newcomer, so peers without a credential can
 * never lock a client out. A body must arrive whole within `bodyMs` of its headers, and one client
 * credential may have at most `maxPendingBodies` arriving at once, so a client trickling bodies
 * cannot fill the cap either: others, and the owner (never counted), still get in. One sweep timer
 * serves all of it: no timer per request.
 */
export class ConnectionGuard {
    /** Untrusted connections and when each opened, oldest first (a Map keeps insertion order). */
    private readonly untrusted = new Map<Socket, number>();
    private readonly open = new Set<Socket>();
    /** Requests whose body is being read, oldest first. */
    private readonly reading = new Map<IncomingMessage, Reading>();
    /** How many bodies each client principal has arriving. */
    private readonly pending = new Map<string, number>();
    /** maxPendingBodies, but never more than half the connections. */
    readonly maxPendingBodies: number;
    private readonly sweeper: ClockTimer;

    constructor(
        server: Server,
        private readonly limits: ConnectionLimits,
        private readonly clock: Clock,
    ) {
        server.on('connection', this.accept);
        this.maxPendingBodies = Math.max(1, Math.min(limits.maxPendingBodies, Math.floor(limits.maxConnections / 2)));
        this.sweeper = clock.setInterval(() => this.sweep(), Math.max(50, Math.min(limits.handshakeMs, limits.bodyMs) / 4), true);
    }

    get connections(): number {
        return this.open.size;
    }

    /** A request on `socket` passed the checks: the connection is a client's from now on. */
    trust(socket: Socket): void {
        if (this.untrusted.size !== 0) {
            this.untrusted.delete(socket);
        }
    }

    /**
     * `caller` is about to send a body: it is cut unless whole within `bodyMs`. Answers why it may
     * not be read when that client credential already has its limit of bodies arriving.
     */
    bodyStarted(req: IncomingMessage, caller: Caller): string | undefined {
        const holder = caller.isOwner ? undefined : caller.principal;
        if (holder !== undefined) {
            const count = this.pending.get(holder) ?? 0;
            if (count >= this.maxPendingBodies) {
                return (
                    `Too many requests of this credential are still sending their bodies (limit ${this.maxPendingBodies}, --max-pending-bodies): ` +
                    'this one was not read and its connection closes. Finish those uploads before starting more.'
                );
            }
            this.pending.set(holder, count + 1);
        }
        this.reading.set(req, { started: this.clock.now(), holder });
        return undefined;
    }

    bodyEnded(req: IncomingMessage): void {
        const reading = this.reading.get(req);
        if (!reading) {
            return;
        }
        this.reading.delete(req);
        if (reading.holder !== undefined) {
            const count = this.pending.get(reading.holder)! - 1;
            if (count === 0) {
                this.pending.delete(reading.holder);
            } else {
                this.pending.set(reading.holder, count);
            }
        }
    }

    close(): void {
        this.clock.clearInterval(this.sweeper);
        this.reading.clear();
        this.pending.clear();
    }

    private readonly accept = (socket: Socket): void => {
        if (this.open.size >= this.limits.maxConnections) {
            const oldest = this.untrusted.keys().next();
            if (oldest.done) {
                socket.destroy();
                return;
            }
            this.drop(oldest.value);
        }
        this.open.add(socket);
        this.untrusted.set(socket, this.clock.now());
        socket.once('close', () => {
            this.open.delete(socket);
            this.untrusted.delete(socket);
        });
    };

    private drop(socket: Socket): void {
        this.open.delete(socket);
        this.untrusted.delete(socket);
        socket.destroy();
    }

    /** Cuts untrusted connections past the handshake time and bodies past theirs (both kept oldest first). */
    sweep(): void {
        const now = this.clock.now();
        for (const [socket, opened] of this.untrusted) {
            if (now - opened < this.limits.handshakeMs) {
                break;
            }
            this.drop(socket);
        }
        for (const [req, { started }] of this.reading) {
            if (now - started < this.limits.bodyMs) {
                break;
            }
            this.bodyEnded(req);
            req.socket.destroy();
        }
    }
}
