/**
 * In-memory vs Redis store, end to end over HTTP on loopback: `npx tsx bench/redis.ts [--n 400]`.
 * Starts dist/server.js with the memory store, then two replicas on a throw-away redis-server
 * (Debian's), and times greet, create (tools/call with task), tasks/get, and the result latency
 * (create a 0-second task, then tasks/result: the time until its outcome is back), the last one
 * also across replicas (created on A, awaited on B). Sequential requests give latency; 16 in
 * flight give throughput. Needs `npm run build` first.
 */
import { randomBytes } from 'node:crypto';
import { RawHttp, startHttpServer, type HttpServer } from '../test/server/helpers.js';
import { startRedis } from '../test/server/redisHelpers.js';

const N = Number(process.argv[process.argv.indexOf('--n') + 1]) || 400;
const CONCURRENCY = 16;

interface Figures {
    p50: number;
    p95: number;
    perSecond: number;
}

let nextId = 1;
async function call(raw: RawHttp, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await raw.call(nextId++, method, params);
    if (response.error) {
        throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    }
    return response.result as Record<string, unknown>;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Latency of `n` sequential runs, and throughput with CONCURRENCY runs in flight. */
async function measure(op: () => Promise<unknown>, n = N): Promise<Figures> {
    for (let i = 0; i < 20; i++) {
        await op();
    }
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
        const start = performance.now();
        await op();
        times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    let left = n;
    const started = performance.now();
    await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
            while (left-- > 0) {
                await op();
            }
        }),
    );
    return { p50: percentile(times, 50), p95: percentile(times, 95), perSecond: n / ((performance.now() - started) / 1000) };
}

async function session(server: HttpServer, token: string): Promise<RawHttp> {
    const raw = new RawHttp(server.url, { authorization: `Bearer ${token}` });
    await raw.initialize();
    return raw;
}

async function suite(a: HttpServer, b: HttpServer | undefined, token: string): Promise<Record<string, Figures>> {
    const onA = await session(a, token);
    const onB = b ? await session(b, token) : undefined;
    const create = () => call(onA, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'bench' }, task: { ttl: 60_000 } });
    const { task } = (await create()) as { task: { taskId: string } };
    const figures: Record<string, Figures> = {
        greet: await measure(() => call(onA, 'tools/call', { name: 'greet', arguments: { name: 'bench' } })),
        create: await measure(create),
        get: await measure(() => call(onA, 'tasks/get', { taskId: task.taskId })),
        'create+result': await measure(async () => {
            const { task: t } = (await create()) as { task: { taskId: string } };
            await call(onA, 'tasks/result', { taskId: t.taskId });
        }),
    };
    if (onB) {
        figures['create on A + result on B'] = await measure(async () => {
            const { task: t } = (await create()) as { task: { taskId: string } };
            await call(onB, 'tasks/result', { taskId: t.taskId });
        });
    }
    return figures;
}

function print(title: string, figures: Record<string, Figures>): void {
    process.stdout.write(`\n${title}\n${'operation'.padEnd(28)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'req/s @16'.padStart(11)}\n`);
    for (const [name, f] of Object.entries(figures)) {
        process.stdout.write(`${name.padEnd(28)}${f.p50.toFixed(2).padStart(9)}${f.p95.toFixed(2).padStart(9)}${f.perSecond.toFixed(0).padStart(11)}\n`);
    }
}

async function main(): Promise<void> {
    const token = randomBytes(16).toString('base64url');
    const common = ['--token', token, '--max-tasks-per-client', '1000000', '--log-level', 'warn'];
    const memory = await startHttpServer(common);
    try {
        print(`memory store (n=${N})`, await suite(memory, undefined, token));
    } finally {
        await memory.stop();
    }
    const redis = await startRedis();
    const replicas = await Promise.all(['bench-a', 'bench-b'].map(id => startHttpServer([...common, '--store', redis.url, '--worker-id', id])));
    try {
        print(`redis store, two replicas (n=${N}, redis-server ${(await redis.cli('INFO', 'server')).match(/redis_version:(\S+)/)?.[1] ?? '?'})`, await suite(replicas[0]!, replicas[1], token));
    } finally {
        await Promise.all(replicas.map(r => r.stop()));
        await redis.stop();
    }
}

main().catch(err => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
});
