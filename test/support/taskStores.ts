/**
 * The task stores the store suites run against: memory always; Redis on MCP_TASKS_TEST_STORE when
 * it names one (npm run test:server:redis), else on a throw-away redis-server when one is installed.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../server/src/util/clock.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DurableTaskStore } from '../../server/src/tasks/durableStore.js';
import { MemoryTaskStore } from '../../server/src/tasks/memoryStore.js';
import { loadSqlite } from '../../server/src/tasks/sqlite.js';
import { RedisTaskStore } from '../../server/src/tasks/redisStore.js';
import type { NewTask, TaskStore } from '../../server/src/tasks/types.js';
import { textResult } from '../../server/src/tools/types.js';
import { TEST_STORE } from './helpers.js';
import { redisCli, redisSkipReason, startRedis } from './redisHelpers.js';

export const newTask = (clientKey: string, extra: Partial<NewTask> = {}): NewTask => ({ clientKey, toolName: 'slow_compute', args: {}, ttl: 60_000, pollInterval: 1000, ...extra });
export const done = { result: textResult('done') };

const sharedRedisUrl = TEST_STORE?.startsWith('redis://') ? TEST_STORE : undefined;

/** Why the Redis store cases cannot run here, or false. */
export function redisStoreSkip(): string | false {
    return sharedRedisUrl ? false : redisSkipReason();
}

export interface TestRedis {
    url: string;
    /** Runs one command through redis-cli and returns its output. */
    cli(...args: string[]): Promise<string>;
    stop(): Promise<void>;
}

/** The Redis of the store suites. A shared one outlives stop(); random key prefixes keep suites apart on it. */
export async function testRedis(): Promise<TestRedis> {
    if (sharedRedisUrl) {
        return { url: sharedRedisUrl, cli: (...args) => redisCli(['-u', sharedRedisUrl], args), stop: async () => undefined };
    }
    return startRedis();
}

/** RedisTaskStores on one server, each under a fresh key prefix unless told to share one; close() closes them all. */
export class RedisStores {
    private readonly stores: RedisTaskStore[] = [];

    constructor(private readonly url: string) {}

    async open(prefix = `t-${randomUUID()}:`, workerId = `w-${randomUUID().slice(0, 8)}`, leaseMs = 10_000, clock?: Clock): Promise<RedisTaskStore> {
        const store = await RedisTaskStore.connect({ url: this.url, prefix, workerId, leaseMs, clock });
        this.stores.push(store);
        return store;
    }

    async close(): Promise<void> {
        await Promise.all(this.stores.map(s => s.close()));
    }
}

/** One TaskStore implementation as the contract suite drives it. */
export interface StoreBackend {
    name: string;
    skip: string | false;
    /** Run by the suite's before and after hooks. */
    start(): Promise<void>;
    stop(): Promise<void>;
    /** A store that holds no tasks yet, reading time from `clock` when given. */
    open(clock?: Clock): Promise<TaskStore>;
    /** A second view of `store`'s tasks: another instance on the same keys, or in memory the store itself. */
    peer(store: TaskStore): Promise<TaskStore>;
}

function memoryBackend(): StoreBackend {
    const stores: MemoryTaskStore[] = [];
    return {
        name: 'MemoryTaskStore',
        skip: false,
        start: async () => undefined,
        stop: async () => {
            await Promise.all(stores.map(s => s.close()));
        },
        open: async clock => {
            const store = new MemoryTaskStore({ clock });
            stores.push(store);
            return store;
        },
        peer: async store => store,
    };
}

function redisBackend(): StoreBackend {
    let redis: TestRedis | undefined;
    let stores: RedisStores | undefined;
    return {
        name: 'RedisTaskStore',
        skip: redisStoreSkip(),
        start: async () => {
            redis = await testRedis();
            stores = new RedisStores(redis.url);
        },
        stop: async () => {
            await stores?.close();
            await redis?.stop();
        },
        open: clock => stores!.open(undefined, undefined, undefined, clock),
        peer: store => stores!.open((store as RedisTaskStore).prefix),
    };
}

/** The durable store, each in a data folder of its own (one process: its peer is itself, as in memory). */
function durableBackend(): StoreBackend {
    const stores: DurableTaskStore[] = [];
    const dirs: string[] = [];
    const DatabaseSync = loadSqlite();
    return {
        name: 'DurableTaskStore',
        skip: DatabaseSync ? false : `this Node.js (${process.version}) has no node:sqlite`,
        start: async () => undefined,
        stop: async () => {
            await Promise.all(stores.map(s => s.close()));
            for (const dir of dirs) {
                rmSync(dir, { recursive: true, force: true });
            }
        },
        open: async clock => {
            const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-durable-'));
            dirs.push(dir);
            const { store } = DurableTaskStore.open(DatabaseSync!, { dir, workerId: `w-${randomUUID().slice(0, 8)}`, clock });
            stores.push(store);
            return store;
        },
        peer: async store => store,
    };
}

/** Fresh backends for one run of the contract suite. */
export function storeBackends(): StoreBackend[] {
    return [memoryBackend(), durableBackend(), redisBackend()];
}
