import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { newSecret } from '../contract.js';
import { createClient, ErrorReply } from './redisClient.js';
import { errorMessage, silentLogger, type Logger } from '../util/log.js';
import { systemClock, type Clock, type ClockTimer } from '../util/clock.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { newTaskId } from './ids.js';
import { recordBase, taskRecord, type RecordBase } from './records.js';
import { retainedSize, retentionError } from './retention.js';
import { SCRIPTS, type LuaScript } from './redisScripts.js';
import type {
    Disposable,
    ListQuery,
    LiveStatus,
    NewTask,
    ProgressUpdate,
    RetentionBudget,
    TaskEvent,
    TaskOutcome,
    TaskPage,
    TaskRecord,
    TaskStatus,
    TaskStore,
    TerminalStatus,
} from './types.js';

export interface RedisStoreOptions {
    /** `redis://[[user]:password@]host[:port][/db]` or `rediss://…`. */
    url: string;
    /** Namespace of every key and of the event channel, so deployments can share one Redis. */
    prefix?: string;
    /** This replica's name: it holds the lease on the tasks it runs. */
    workerId: string;
    /** A replica whose heartbeat is older than this is lost, and its live tasks fail. */
    leaseMs?: number;
    /** How often this replica looks for expired tasks and lost workers (default: min(1 s, lease / 4)). */
    reapIntervalMs?: number;
    /** How long the first connection may take before start-up fails. */
    connectTimeoutMs?: number;
    log?: Logger;
    /** Time for timestamps and the lease and reaper timers (the real one by default). */
    clock?: Clock;
}

export const DEFAULT_PREFIX = 'mcp-tasks:';
export const DEFAULT_LEASE_MS = 10_000;
/** Progress tokens remembered per replica (the oldest forgotten first); a forgotten one is read again. */
const TOKEN_CACHE_SIZE = 10_000;

/** The immutable part of a record, stored as one JSON string the Lua scripts never re-encode. */
type Base = RecordBase;

/** An event as the scripts publish it (short keys: it crosses the wire for every change). */
type WireEvent =
    | { t: 's'; o: string; c: boolean; b: Base; s: TaskStatus; m: string | null; u: string; x: string | null; q: number }
    | { t: 'd'; o: string; id: string; ck: string }
    /**
     * Progress: the token goes out with a task's first tick only (repeated, a large one multiplied
     * the traffic); later ticks say `hp` (has a token) and replicas use the one they kept.
     */
    | { t: 'p'; o: string; id: string; ck: string; pt?: string | number; hp: 0 | 1; up: ProgressUpdate }
    /** A 2026-07-28 client's answers to a task's input requests, for the replica that runs it. */
    | { t: 'i'; o: string; id: string; r: Record<string, unknown> };

interface PendingFinish {
    status: TerminalStatus;
    outcome: TaskOutcome;
    statusMessage?: string;
    at: string;
}

/**
 * Speaks RESP2, redis 5's default: redis 6 defaults to RESP3, whose replies (maps, doubles, nulls)
 * the store's readers do not expect. Either major version then answers alike.
 */
function newClient(options: Omit<Parameters<typeof createClient>[0] & object, 'RESP'>) {
    return createClient({ ...options, RESP: 2 });
}

type RedisClient = ReturnType<typeof newClient>;

function recordOf(event: Extract<WireEvent, { t: 's' }>): TaskRecord {
    return taskRecord(event.b, event.s, event.m ?? undefined, event.u, event.x ?? undefined, Number(event.q));
}

/** The URL without its password, for logs and errors. */
export function redactUrl(url: string): string {
    try {
        const parsed = new URL(url);
        if (parsed.password) {
            parsed.password = '***';
        }
        return parsed.toString();
    } catch {
        return 'redis://(invalid url)';
    }
}

/**
 * A TaskStore in Redis, shared by any number of server replicas. Every write is one Lua script
 * (see redisScripts.ts) that also publishes the change on one channel; each replica applies its
 * own events at once and takes the others' from pub/sub. Retention is Redis key expiry. Each
 * replica heartbeats a lease; any replica fails the live tasks of a worker whose lease lapsed.
 */
export class RedisTaskStore implements TaskStore {
    readonly workerId: string;
    readonly prefix: string;
    readonly leaseMs: number;
    private readonly channel: string;
    /** Tags this instance's publications so it does not apply its own events twice. */
    private readonly origin = randomUUID();
    /** This process's hold on the worker id: a restart under the same id is a new incarnation. */
    private readonly incarnation = randomUUID();
    /** Set once another process was seen holding this worker id (reported once). */
    private displaced = false;
    private readonly events = new EventEmitter();
    private readonly log: Logger;
    private readonly where: string;
    /** Terminal transitions that could not be written while Redis was unreachable, replayed on reconnect. */
    private readonly pending = new Map<string, PendingFinish>();
    private readonly clock: Clock;
    private beatTimer?: ClockTimer;
    private reapTimer?: ClockTimer;
    private beatMs = 0;
    private reapMs = 0;
    private connected = false;
    private closed = false;
    private outageLogged = false;
    /** Progress tokens of other replicas' tasks, read once per task (see receiveProgress). */
    private readonly tokens = new Map<string, string | number>();
    /** Records of this replica's tasks whose token went out with their first progress. */
    private readonly announced = new WeakSet<TaskRecord>();

    private constructor(
        private readonly client: RedisClient,
        private readonly subscriber: RedisClient,
        options: RedisStoreOptions,
    ) {
        this.workerId = options.workerId;
        this.prefix = options.prefix ?? DEFAULT_PREFIX;
        this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
        this.channel = `${this.prefix}events`;
        this.log = options.log ?? silentLogger;
        this.clock = options.clock ?? systemClock;
        this.where = redactUrl(options.url);
        this.events.setMaxListeners(0);
    }

    /** Connects (failing fast with a clear error when Redis cannot be reached), subscribes and starts the lease. */
    static async connect(options: RedisStoreOptions): Promise<RedisTaskStore> {
        if (/[\s]/.test(options.workerId) || options.workerId === '') {
            throw new Error(`Invalid worker id "${options.workerId}": use letters, digits and punctuation, no spaces`);
        }
        let started = false;
        const connectTimeout = options.connectTimeoutMs ?? 5000;
        const reconnectStrategy = (retries: number, cause: Error): number | Error => {
            if (!started && retries >= 2) {
                return new Error(`cannot reach Redis at ${redactUrl(options.url)}: ${cause.message || cause.name}`);
            }
            return Math.min(100 * 2 ** Math.min(retries, 5), 2000);
        };
        const base = {
            url: options.url,
            disableOfflineQueue: true,
            pingInterval: 2000,
            socket: { connectTimeout, reconnectStrategy, socketTimeout: 6000 },
        };
        const client = newClient({ ...base, name: `mcp-tasks:${options.workerId}` });
        const subscriber = newClient({ ...base, name: `mcp-tasks-events:${options.workerId}` });
        const store = new RedisTaskStore(client, subscriber, options);
        client.on('error', (err: Error) => store.onConnectionError(err));
        subscriber.on('error', (err: Error) => store.onConnectionError(err));
        try {
            await client.connect();
            await subscriber.connect();
            await subscriber.subscribe(store.channel, message => store.onMessage(message));
            await store.claim();
        } catch (err) {
            store.closed = true;
            for (const c of [client, subscriber]) {
                if (c.isOpen) {
                    c.destroy();
                }
            }
            const why = errorMessage(err);
            throw new Error(`Task store unavailable: ${why.startsWith('cannot reach') ? why : `cannot reach Redis at ${store.where}: ${why}`}`, { cause: err });
        }
        started = true;
        store.connected = true;
        client.on('ready', () => void store.onReconnected('commands'));
        subscriber.on('ready', () => void store.onReconnected('events'));
        store.startTimers(options.reapIntervalMs ?? Math.max(50, Math.min(1000, store.leaseMs / 4)));
        void store.reap();
        return store;
    }

    /** Both limits of `budget` (count and bytes) hold across replicas: one script checks and counts. */
    async create(input: NewTask, maxLive: number, budget?: RetentionBudget): Promise<TaskRecord> {
        const now = this.isoNow();
        const taskId = newTaskId();
        const base = recordBase(input, taskId, now);
        // The lease is held by the process that runs the work: this one.
        const reply = await this.run(SCRIPTS.create, [
            taskId,
            input.clientKey,
            String(maxLive),
            String(Math.max(1, Math.round(input.ttl))),
            JSON.stringify(base),
            now,
            input.parentTaskId ?? '',
            this.workerId,
            budget && Number.isFinite(budget.maxTasks) ? String(budget.maxTasks) : '',
            budget && Number.isFinite(budget.maxBytes) ? String(budget.maxBytes) : '',
            String(retainedSize(input)),
        ]);
        if (reply === 0) {
            throw new RpcError(ErrorCodes.LimitExceeded, `Too many live tasks for this client (limit ${maxLive}); wait for some to finish or cancel them`, { limit: maxLive });
        }
        if (reply === -1) {
            throw retentionError('tasks', budget!.maxTasks);
        }
        if (reply === -2) {
            throw retentionError('bytes', budget!.maxBytes);
        }
        return this.applyOwn(reply as string);
    }

    async get(taskId: string): Promise<TaskRecord | undefined> {
        const [base, status, msg, updated, ext, seq] = (await this.command(['HMGET', this.key(taskId), 'base', 'status', 'msg', 'updated', 'ext', 'seq'])) as (string | null)[];
        if (!base || !status || !updated) {
            return undefined;
        }
        return recordOf({ t: 's', o: '', c: false, b: JSON.parse(base) as Base, s: status as TaskStatus, m: msg ?? null, u: updated, x: ext ?? null, q: Number(seq) });
    }

    async setStatus(taskId: string, status: LiveStatus, statusMessage?: string, quiet?: boolean): Promise<TaskRecord | undefined> {
        const reply = await this.run(SCRIPTS.setStatus, [taskId, status, statusMessage === undefined ? '0' : '1', statusMessage ?? '', this.isoNow(), quiet ? '1' : '0']);
        if (typeof reply !== 'string') {
            return undefined;
        }
        return quiet ? recordOf(JSON.parse(reply) as Extract<WireEvent, { t: 's' }>) : this.applyOwn(reply);
    }

    async finish(taskId: string, status: TerminalStatus, outcome: TaskOutcome, statusMessage?: string): Promise<TaskRecord | undefined> {
        const at = this.isoNow();
        try {
            return await this.writeFinish(taskId, { status, outcome, statusMessage, at });
        } catch (err) {
            if (err instanceof RpcError && err.code === ErrorCodes.StoreUnavailable && !this.closed) {
                // The outcome must not be lost: it is written (through the same terminal guard) once Redis is back.
                if (!this.pending.has(taskId)) {
                    this.pending.set(taskId, { status, outcome, statusMessage, at });
                    this.log.warn(`[store] task ${taskId} ended ${status} while Redis is unreachable; the outcome is kept and written on reconnect`);
                }
            }
            throw err;
        }
    }

    async setExternalRef(taskId: string, ref: string): Promise<void> {
        await this.run(SCRIPTS.setExternalRef, [taskId, ref], false);
    }

    async getOutcome(taskId: string): Promise<TaskOutcome | undefined> {
        const raw = (await this.command(['HGET', this.key(taskId), 'outcome'])) as string | null;
        return raw ? (JSON.parse(raw) as TaskOutcome) : undefined;
    }

    async list(query: ListQuery): Promise<TaskPage> {
        const after = query.cursor === undefined ? 0 : decodeCursor(query.cursor);
        const index = query.parentTaskId !== undefined ? `p:${query.parentTaskId}` : query.clientKey !== undefined ? `c:${query.clientKey}` : 'all';
        const filter = query.parentTaskId !== undefined && query.clientKey !== undefined ? query.clientKey : '';
        const limit = Math.max(1, query.limit);
        const reply = (await this.run(SCRIPTS.list, [index, String(after), String(limit), filter], false)) as string[];
        const tasks = reply.slice(0, limit).map(raw => recordOf(JSON.parse(raw) as Extract<WireEvent, { t: 's' }>));
        const last = tasks[tasks.length - 1];
        return reply.length > limit && last ? { tasks, nextCursor: encodeCursor(last.seq) } : { tasks };
    }

    publishProgress(task: TaskRecord, update: ProgressUpdate): void {
        this.emit({ type: 'progress', taskId: task.taskId, clientKey: task.clientKey, progressToken: task.progressToken, update });
        const token = task.progressToken;
        const first = token !== undefined && !this.announced.has(task);
        if (first) {
            this.announced.add(task);
        }
        const wire: WireEvent = { t: 'p', o: this.origin, id: task.taskId, ck: task.clientKey, pt: first ? token : undefined, hp: token === undefined ? 0 : 1, up: update };
        // Progress is advisory: a notification lost during an outage is not worth an error.
        this.command(['PUBLISH', this.channel, JSON.stringify(wire)]).catch(() => undefined);
    }

    async setInputRequests(taskId: string, requests: Record<string, { method: string; params: Record<string, unknown> }> | undefined, ttlMs: number): Promise<void> {
        const key = `${this.prefix}in:${taskId}`;
        await this.command(requests === undefined ? ['DEL', key] : ['SET', key, JSON.stringify(requests), 'PX', String(Math.max(1000, Math.round(ttlMs)))]);
    }

    async getInputRequests(taskId: string): Promise<Record<string, { method: string; params: Record<string, unknown> }> | undefined> {
        const raw = (await this.command(['GET', `${this.prefix}in:${taskId}`])) as string | null;
        return raw === null ? undefined : (JSON.parse(raw) as Record<string, { method: string; params: Record<string, unknown> }>);
    }

    async publishInputResponses(taskId: string, responses: Record<string, unknown>): Promise<void> {
        this.emit({ type: 'input', taskId, responses });
        const wire: WireEvent = { t: 'i', o: this.origin, id: taskId, r: responses };
        await this.command(['PUBLISH', this.channel, JSON.stringify(wire)]);
    }

    async sharedSecret(name: string): Promise<string> {
        const key = `${this.prefix}secret:${name}`;
        await this.command(['SET', key, newSecret(), 'NX']);
        return (await this.command(['GET', key])) as string;
    }

    /**
     * The ended sessions' tasks of every replica are held to one `budget` together, in one script
     * (see ORPHAN), the oldest deleted first. Never rejects: a store that is unreachable leaves them to their ttl.
     */
    async orphan(clientKey: string, budget: RetentionBudget): Promise<void> {
        const limit = (n: number) => (Number.isFinite(n) ? String(n) : '');
        try {
            await this.run(SCRIPTS.orphan, [clientKey, limit(budget.maxTasks), limit(budget.maxBytes)]);
        } catch (err) {
            this.log.warn(`[store] the tasks of ended client ${clientKey} keep their ttl, outside the ended sessions' budget: ${errorMessage(err)}`);
        }
    }

    onEvent(listener: (event: TaskEvent) => void): Disposable {
        this.events.on('event', listener);
        return { dispose: () => this.events.off('event', listener) };
    }

    /** Stops the lease (a clean stop leaves nothing for the reaper) and closes both connections. */
    async close(): Promise<void> {
        if (this.closed) {
            return;
        }
        this.closed = true;
        this.stopTimers();
        if (this.client.isReady) {
            await this.runRaw(SCRIPTS.retire, [this.prefix, this.workerId]).catch(err => this.log.warn(`[store] could not retire worker ${this.workerId}: ${errorMessage(err)}`));
        }
        if (this.pending.size > 0) {
            this.log.warn(`[store] ${this.pending.size} task outcome(s) could not be written to Redis before shutdown; the reaper will fail those tasks`);
        }
        await Promise.all([this.client, this.subscriber].map(c => (c.isOpen ? c.close().catch(() => undefined) : undefined)));
    }

    /** Looks for expired tasks and lost workers now (every replica also does so periodically). */
    async reap(): Promise<{ expired: number; failed: number }> {
        try {
            const [expired, failed, lapsed] = (await this.runRaw(SCRIPTS.reap, [this.prefix, this.channel, this.isoNow(), '200'])) as [number, number, (string | number)[]];
            for (let i = 0; i < (lapsed?.length ?? 0); i += 2) {
                this.log.warn(`[store] worker ${lapsed[i]} stopped responding (its lease lapsed): failed the ${lapsed[i + 1]} task(s) it was running`);
            }
            return { expired: expired ?? 0, failed: failed ?? 0 };
        } catch (err) {
            this.log.debug(`[store] reap skipped: ${errorMessage(err)}`);
            return { expired: 0, failed: 0 };
        }
    }

    private async heartbeat(): Promise<void> {
        const held = await this.runRaw(SCRIPTS.heartbeat, [this.prefix, this.workerId, String(this.leaseMs), this.incarnation]);
        if (held === 0 && !this.displaced) {
            this.displaced = true;
            this.log.error(
                `[store] another process started as worker ${this.workerId} and failed the tasks this one was running; ` +
                    'each replica needs its own --worker-id (leave it unset for a unique one)',
            );
        }
    }

    /**
     * Takes the worker id for this process. Tasks still live under it ran in an earlier process
     * under the same id (a restart), so they fail at once with words that say so; the lease alone
     * would never lapse, since this process renews it.
     */
    private async claim(): Promise<void> {
        const [failed, before] = (await this.runRaw(SCRIPTS.claim, [this.prefix, this.channel, this.isoNow(), this.workerId, String(this.leaseMs), this.incarnation])) as [string[], string | null];
        if (failed.length > 0) {
            const shown = failed.slice(0, 10).join(', ') + (failed.length > 10 ? `, and ${failed.length - 10} more` : '');
            this.log.warn(`[store] worker ${this.workerId} restarted: failed the ${failed.length} task(s) its previous process left running (${shown}); their work was lost with that process`);
        } else if (before) {
            this.log.info(`[store] worker ${this.workerId} restarted; its previous process left no running task`);
        }
    }

    /** Heartbeat and reaper, each re-armed when its round ends (a slow Redis never gets overlapping rounds). */
    private startTimers(reapIntervalMs: number): void {
        this.beatMs = Math.max(20, Math.floor(this.leaseMs / 3));
        this.reapMs = reapIntervalMs;
        this.beatTimer = this.clock.setTimeout(beatRound, this.beatMs, this, true);
        this.reapTimer = this.clock.setTimeout(reapRound, this.reapMs, this, true);
    }

    /** @internal one heartbeat round, then the next is armed. */
    async beatRound(): Promise<void> {
        await this.heartbeat().catch(err => this.log.debug(`[store] heartbeat failed: ${errorMessage(err)}`));
        if (!this.closed && this.beatTimer) {
            this.beatTimer = this.clock.setTimeout(beatRound, this.beatMs, this, true);
        }
    }

    /** @internal one reaper round, then the next is armed. */
    async reapRound(): Promise<void> {
        await this.reap();
        if (!this.closed && this.reapTimer) {
            this.reapTimer = this.clock.setTimeout(reapRound, this.reapMs, this, true);
        }
    }

    /** Stops the heartbeat and the reaper (close; a test simulating a crash). */
    private stopTimers(): void {
        this.clock.clearTimeout(this.beatTimer);
        this.clock.clearTimeout(this.reapTimer);
        this.beatTimer = undefined;
        this.reapTimer = undefined;
    }

    private isoNow(): string {
        return new Date(this.clock.now()).toISOString();
    }

    private async writeFinish(taskId: string, finish: PendingFinish): Promise<TaskRecord | undefined> {
        const outcome = JSON.stringify(finish.outcome);
        const reply = await this.run(SCRIPTS.finish, [taskId, finish.status, finish.statusMessage === undefined ? '0' : '1', finish.statusMessage ?? '', finish.at, outcome, String(outcome.length)]);
        return typeof reply === 'string' ? this.applyOwn(reply) : undefined;
    }

    /** After a reconnect: renew the lease first (so no replica takes this one for lost), write what is pending, then let the runtime re-read. */
    private async onReconnected(which: 'commands' | 'events'): Promise<void> {
        if (this.closed || !this.connected) {
            return;
        }
        if (which === 'commands') {
            try {
                await this.heartbeat();
                for (const [taskId, finish] of [...this.pending]) {
                    await this.writeFinish(taskId, finish);
                    this.pending.delete(taskId);
                }
            } catch (err) {
                this.log.warn(`[store] resync after reconnect failed: ${errorMessage(err)}`);
                return;
            }
        }
        // Once both connections are back (whichever comes second): events published while this
        // replica was not listening are gone, so waiters re-read the store.
        if (this.client.isReady && this.subscriber.isReady) {
            if (this.outageLogged) {
                this.outageLogged = false;
                this.log.info(`[store] reconnected to Redis at ${this.where}`);
            }
            this.emit({ type: 'resync' });
        }
    }

    private onConnectionError(err: Error): void {
        if (this.closed) {
            return;
        }
        if (!this.outageLogged && this.connected) {
            this.outageLogged = true;
            this.log.error(`[store] lost the connection to Redis at ${this.where} (${err.message || err.name}); requests answer -32001 until it is back, reconnecting`);
        }
    }

    private onMessage(message: string): void {
        let wire: WireEvent;
        try {
            wire = JSON.parse(message) as WireEvent;
        } catch {
            return;
        }
        if (wire.o === this.origin) {
            return;
        }
        switch (wire.t) {
            case 's':
                if (wire.s === 'completed' || wire.s === 'failed' || wire.s === 'cancelled') {
                    this.tokens.delete(wire.b.taskId);
                }
                this.emit(wire.c ? { type: 'status', task: recordOf(wire), created: true } : { type: 'status', task: recordOf(wire) });
                break;
            case 'd':
                this.tokens.delete(wire.id);
                this.emit({ type: 'deleted', taskId: wire.id, clientKey: wire.ck });
                break;
            case 'p':
                this.receiveProgress(wire);
                break;
            case 'i':
                this.emit({ type: 'input', taskId: wire.id, responses: wire.r });
                break;
        }
    }

    private receiveProgress(wire: Extract<WireEvent, { t: 'p' }>): void {
        let token = wire.pt;
        if (token !== undefined) {
            this.rememberToken(wire.id, token);
        } else if (wire.hp) {
            token = this.tokens.get(wire.id);
            if (token === undefined) {
                // Missed the first tick (this replica started later, or forgot): this one is dropped
                // (progress is advisory; a late emit would overtake later events), the token read for the next.
                void this.get(wire.id).then(
                    record => record?.progressToken !== undefined && this.rememberToken(wire.id, record.progressToken),
                    () => undefined,
                );
                return;
            }
        }
        this.emit({ type: 'progress', taskId: wire.id, clientKey: wire.ck, progressToken: token, update: wire.up });
    }

    private rememberToken(taskId: string, token: string | number): void {
        if (!this.tokens.has(taskId) && this.tokens.size >= TOKEN_CACHE_SIZE) {
            this.tokens.delete(this.tokens.keys().next().value!);
        }
        this.tokens.set(taskId, token);
    }

    /** Applies an event this instance caused at once (its pub/sub copy is skipped), and returns the record. */
    private applyOwn(raw: string): TaskRecord {
        const wire = JSON.parse(raw) as Extract<WireEvent, { t: 's' }>;
        const task = recordOf(wire);
        this.emit(wire.c ? { type: 'status', task, created: true } : { type: 'status', task });
        return task;
    }

    private emit(event: TaskEvent): void {
        try {
            this.events.emit('event', event);
        } catch (err) {
            this.log.error(`[store] event listener failed: ${errorMessage(err)}`);
        }
    }

    private key(taskId: string): string {
        return `${this.prefix}t:${taskId}`;
    }

    /** A store script with the standard leading arguments (prefix, channel, origin) unless `standard` is false (prefix only). */
    private run(script: LuaScript, args: string[], standard = true): Promise<unknown> {
        return this.runRaw(script, standard ? [this.prefix, this.channel, this.origin, ...args] : [this.prefix, ...args]);
    }

    private async runRaw(script: LuaScript, args: string[]): Promise<unknown> {
        try {
            return await this.command(['EVALSHA', script.sha, '0', ...args]);
        } catch (err) {
            if (err instanceof RpcError && err.code === ErrorCodes.InternalError && /NOSCRIPT/.test(err.message)) {
                return this.command(['EVAL', script.source, '0', ...args]);
            }
            throw err;
        }
    }

    /** One Redis command; a connection problem becomes StoreUnavailable (-32001), a Redis error an internal error. */
    private async command(args: string[]): Promise<unknown> {
        try {
            return await this.client.sendCommand(args);
        } catch (err) {
            if (err instanceof ErrorReply) {
                throw new RpcError(ErrorCodes.InternalError, `Task store error: ${err.message}`);
            }
            throw new RpcError(ErrorCodes.StoreUnavailable, `Task store unavailable: cannot reach Redis (${errorMessage(err) || 'connection lost'}); try again shortly`);
        }
    }
}

function beatRound(store: RedisTaskStore): void {
    void store.beatRound();
}

function reapRound(store: RedisTaskStore): void {
    void store.reapRound();
}
