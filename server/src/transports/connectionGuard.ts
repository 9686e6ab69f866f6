import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Clock, ClockTimer } from '../util/clock.js';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from '../defaults.js';
export { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits };

/**
 * Keeps unauthenticated peers from holding the server's connections. Each connection is
 * untrusted until a request on it passes the Host, Origin and credential checks; untrusted ones
 * are cut after `handshakeMs`, and at the cap the oldest of them makes room for a newcomer, so
 * peers without a credential can never lock a client out. Bodies that stall are cut after
 * `bodyIdleMs`. One sweep timer serves all of it: nothing is allocated per request.
 */
export class ConnectionGuard {
    /** Untrusted connections and when each opened, oldest first (a Map keeps insertion order). */
    private readonly untrusted = new Map<Socket, number>();
    private readonly open = new Set<Socket>();
    /** Requests whose body is being read, and when a byte last came. */
    private readonly reading = new Map<IncomingMessage, number>();
    private readonly sweeper: ClockTimer;

    constructor(
        server: Server,
        private readonly limits: ConnectionLimits,
        private readonly clock: Clock,
    ) {
        server.on('connection', this.accept);
        this.sweeper = clock.setInterval(() => this.sweep(), Math.max(50, Math.min(limits.handshakeMs, limits.bodyIdleMs) / 4), true);
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

    /** A body is being read: cut if it stalls. */
    bodyStarted(req: IncomingMessage): void {
        this.reading.set(req, this.clock.now());
    }

    bodyProgress(req: IncomingMessage): void {
        if (this.reading.has(req)) {
            this.reading.set(req, this.clock.now());
        }
    }

    bodyEnded(req: IncomingMessage): void {
        this.reading.delete(req);
    }

    close(): void {
        this.clock.clearInterval(this.sweeper);
        this.reading.clear();
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

    /** Cuts untrusted connections past the handshake time and bodies idle past theirs. */
    sweep(): void {
        const now = this.clock.now();
        for (const [socket, opened] of this.untrusted) {
            if (now - opened < this.limits.handshakeMs) {
                break;
            }
            this.drop(socket);
        }
        for (const [req, last] of this.reading) {
            if (now - last >= this.limits.bodyIdleMs) {
                this.reading.delete(req);
                req.socket.destroy();
            }
        }
    }
}
