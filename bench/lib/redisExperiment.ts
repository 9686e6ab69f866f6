// The Redis experiment: ours with its tasks in a throw-away redis-server (kind `redis`) against ours
// with the in-memory store (kind `ours`), through the same HTTP measurements as the memory rows,
// plus the figure only a shared store has: a result awaited on another replica.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { redisSkipReason, startRedis } from '../../test/support/redisHelpers.js';
import { cancelLatency, httpThroughput, memoryAndList, poster, prefixed, resultLatency, resultSamples, type Context, type Metrics } from './experiments.js';
import { HttpMcpSession } from './httpClient.js';
import { startHttp, type Kind } from './targets.js';

export { redisSkipReason };

/** "7.0.15", from `redis-server --version`, for the sentence above the table. */
export function redisVersion(): string {
    const out = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).stdout ?? '';
    return /v=(\S+)/.exec(out)?.[1] ?? 'unknown';
}

/** The Redis experiment's own sizes in place of the memory rows' (see Settings.redis). */
function sized(ctx: Context): Context {
    const { warmupMs, windowMs, resultSamples, cancelSamples, listTasks } = ctx.settings.redis;
    return { ...ctx, settings: { ...ctx.settings, warmupMs, windowMs, cancelSamples, resultSamples: { ours: resultSamples, baseline: resultSamples }, memoryPoints: [listTasks] } };
}

export async function redisVsMemory(ctx: Context, kind: Kind): Promise<Metrics> {
    // A fresh redis-server for each run, as each run gets fresh server processes.
    const redis = kind === 'redis' ? await startRedis() : undefined;
    try {
        const pid = redis ? Number(/process_id:(\d+)/.exec(await redis.cli('INFO', 'server'))?.[1]) : NaN;
        const here = sized(redis ? { ...ctx, programs: { ...ctx.programs, redis: { url: redis.url, pid } } } : ctx);
        const took: string[] = [];
        // Every measurement starts on an empty Redis, as it starts a fresh server.
        const measure = async (name: string, run: () => Promise<Metrics>) => {
            await redis?.cli('FLUSHALL');
            const t0 = performance.now();
            const metrics = await run();
            took.push(`${name} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
            return metrics;
        };
        const throughput = await measure('throughput', () => httpThroughput(here, kind));
        const result = await measure('result', () => resultLatency(here, kind));
        const cancel = await measure('cancel', () => cancelLatency(here, kind));
        // One point of the memory experiment: its first tasks/list figure.
        const list = await measure('list', () => memoryAndList(here, kind));
        const elsewhere = await measure('elsewhere', () => resultElsewhere(here, kind));
        ctx.log(`      ${kind}: ${took.join(', ')}`);
        return {
            ...throughput,
            ...prefixed('result', result),
            ...prefixed('cancel', cancel),
            listFirstP50: list.listFirstP50!,
            listFirstP99: list.listFirstP99!,
            ...prefixed('elsewhere', elsewhere),
        };
    } finally {
        await redis?.stop();
    }
}

/**
 * Completion → tasks/result with the task created in one session and its result awaited in
 * another session of the same client (one bearer token, tasks bound to it): on Redis the two
 * sessions are on two replicas; the memory store has no second replica, so both are on one process.
 */
async function resultElsewhere(ctx: Context, kind: Kind): Promise<Metrics> {
    const token = randomBytes(16).toString('base64url');
    // One argument: a base64url token may start with '-', which the CLI would not take as a separate value.
    const args = [`--token=${token}`, '--bind', 'principal'];
    const replicas = kind === 'redis' ? [[...args, '--worker-id', 'bench-a'], [...args, '--worker-id', 'bench-b']] : [args];
    const started = await Promise.allSettled(replicas.map(replicaArgs => startHttp(kind, ctx.programs, { args: replicaArgs })));
    const servers = started.flatMap(outcome => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const client = poster(ctx, 64);
    try {
        const failed = started.find(outcome => outcome.status === 'rejected');
        if (failed) {
            throw failed.reason;
        }
        const auth = { authorization: `Bearer ${token}` };
        const creator = await HttpMcpSession.open(servers[0]!.url, client, {}, auth);
        const waiter = await HttpMcpSession.open(servers[servers.length - 1]!.url, client, {}, auth);
        return await resultSamples(creator, waiter, ctx.settings.resultSamples.ours, 4);
    } finally {
        client.close();
        await Promise.all(servers.map(server => server.stop()));
    }
}
