// The measurements. Each experiment starts a fresh program of one kind (ours, baseline, floor, redis),
// measures, stops it, and returns named numbers; run.ts alternates the kinds and takes medians.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { FetchPoster, HttpMcpSession, NodeHttpPoster, Encoder2026, type Poster } from './httpClient.js';
import { closedLoop, delay, interleavedLoops, inTurn, pool } from './load.js';
import { percentile, slope } from './stats.js';
import type { StdioMcpClient } from './stdioClient.js';
import { CHILD_ENV, cpuMs, ROOT, rssBytes, startHttp, startStdio, track, type Kind, type Programs, type RunningServer } from './targets.js';

export type Metrics = Record<string, number>;

/** A metric's name under a prefix, for an experiment that takes several measurements: `p50` under `result` → `resultP50`; no prefix, the name itself. */
export function metricName(prefix: string, key: string): string {
    return prefix ? `${prefix}${key[0]!.toUpperCase()}${key.slice(1)}` : key;
}

/** One measurement's metrics, each renamed under `prefix` (metricName). */
export function prefixed(prefix: string, metrics: Metrics): Metrics {
    return Object.fromEntries(Object.entries(metrics).map(([key, value]) => [metricName(prefix, key), value]));
}

export interface Settings {
    quick: boolean;
    warmupMs: number;
    windowMs: number;
    /** Turns per side when two programs are measured side by side (interleavedLoops). */
    slices: number;
    concurrency: number;
    liveTasksForGet: number;
    progressTasks: number;
    progressWindowMs: number;
    memoryPoints: number[];
    /** The Redis experiment's sizes: smaller than the memory rows' own, so that it fits the run's time. */
    redis: { warmupMs: number; windowMs: number; resultSamples: number; cancelSamples: number; listTasks: number };
    /** The durable-store experiment's sizes (durableExperiment.ts): smaller than the main rows' own, as each round runs both transports for both stores. */
    durable: { warmupMs: number; windowMs: number; resultSamples: number };
    /** The HTTP memory experiment stops adding tasks after this long (ticking tasks can saturate the server). */
    memoryBudgetMs: number;
    /**
     * The gateway experiment's warm-up per side, longer than warmupMs: its two processes (our bundle
     * and the downstream) are still compiling their hot paths and sizing their heaps half a second
     * in, and on the loaded machine for several seconds (gatewayExperiment.ts).
     */
    gatewayWarmupMs: number;
    /** Running wrapped tasks at which the gateway's RSS is read (gatewayExperiment.ts). */
    gatewayTaskPoints: number[];
    /** The in-process heap probe: from, to. */
    heapPoints: [number, number];
    resultSamples: { ours: number; baseline: number };
    cancelSamples: number;
    coldStarts: number;
    activations: number;
    /** How long to wait after creating ticking tasks, so each has ticked once (slow_compute ticks after 1 s). */
    settleMs: number;
    /** Rounds of the node:http vs fetch comparison. */
    clientRounds: number;
    client: 'node-http' | 'fetch';
}

export interface Context {
    programs: Programs;
    settings: Settings;
    log(message: string): void;
}

/**
 * Wall-clock milliseconds, on the same clock as the server's stamps (Date.now() in both processes).
 * Not performance.timeOrigin + now(): on this VM that read 3.3 ms ahead of Date.now() and drifted
 * from it by about 0.3 % (monotonic vs realtime clock), which put millisecond errors into
 * cross-process latencies. Date.now() truncates to the millisecond on both sides, so a difference
 * is off by less than 1 ms either way.
 */
function epochNow(): number {
    return Date.now();
}

const GREET = JSON.stringify({ name: 'greet', arguments: { name: 'World' } });

function slowCompute(seconds: number, label: string, extra: { ttl?: number; progressToken?: string } = {}): string {
    const params: Record<string, unknown> = { name: 'slow_compute', arguments: { seconds, label }, task: extra.ttl ? { ttl: extra.ttl } : {} };
    if (extra.progressToken) {
        params._meta = { progressToken: extra.progressToken };
    }
    return JSON.stringify(params);
}

export function poster(ctx: Context, sockets: number): Poster {
    return ctx.settings.client === 'fetch' ? new FetchPoster() : new NodeHttpPoster(sockets);
}

/** A caller for either transport: method + params JSON → result. */
type Caller = (method: string, paramsJson: string) => Promise<Record<string, unknown>>;

async function createLongTasks(call: Caller, count: number, concurrency: number, label: string, progress = false): Promise<string[]> {
    const ids: string[] = new Array<string>(count);
    await pool(count, concurrency, async i => {
        const result = await call('tools/call', slowCompute(86_400, `${label}-${i}`, progress ? { progressToken: `p${i}` } : {}));
        ids[i] = taskIdOf(result);
    });
    return ids;
}

/** The id in a CreateTaskResult: `task.taskId` (2025-11-25), or flat (2026-07-28, resultType "task"). */
export function taskIdOf(result: Record<string, unknown>): string {
    const taskId = ((result.task as { taskId?: unknown } | undefined) ?? result).taskId;
    if (typeof taskId !== 'string') {
        throw new Error(`not a task: ${JSON.stringify(result).slice(0, 200)}`);
    }
    return taskId;
}

/** Tasks that complete at once, each polled until it has (their tasks/get then carries the outcome under 2026-07-28). */
async function createDoneTasks(call: Caller, count: number, concurrency: number): Promise<string[]> {
    const ids: string[] = new Array<string>(count);
    await pool(count, concurrency, async i => {
        const taskId = taskIdOf(await call('tools/call', slowCompute(0, `done-${i}`, { ttl: 3_600_000 })));
        const idJson = JSON.stringify({ taskId });
        for (let polls = 0; (await call('tasks/get', idJson)).status !== 'completed'; polls++) {
            if (polls === 200) {
                throw new Error(`task ${taskId} did not complete`);
            }
            await delay(10);
        }
        ids[i] = taskId;
    });
    return ids;
}

/** One program under measurement: its kind, its CPU time so far (ms), and how to call it. */
interface Side {
    kind: Kind;
    cpu: () => number;
    call: Caller;
}

/** One closed loop of a phase: which side it loads, with what. */
interface Target {
    side: number;
    op: (worker: number, seq: number) => Promise<unknown>;
    what: string;
}

/**
 * greet sequentially, greet with `concurrency` in flight, then (not for the floor) task creation
 * and tasks/get over live tasks, all in one session of one fresh program. Besides rates and
 * latencies, each loaded phase reports the program's CPU time per request (µs, from /proc), which
 * the shared machine's noise disturbs far less than the rates.
 *
 * With two sides (the revision experiment), both programs run side by side and each phase takes
 * them in turns (interleavedLoops), so that the two figures of a phase are measured under the same
 * load; the result is one Metrics per side.
 */
async function throughputSuite(ctx: Context, sides: Side[], options: ThroughputOptions = {}): Promise<Metrics[]> {
    const { warmupMs, windowMs, concurrency, liveTasksForGet, slices } = ctx.settings;
    const measured = async (targets: Target[], workers: number) => {
        const results =
            targets.length === 1
                ? [await closedLoop(workers, warmupMs, windowMs, targets[0]!.op, sides[targets[0]!.side]!.cpu)]
                : await interleavedLoops(targets.length, workers, warmupMs, windowMs, slices, (t, w, n) => targets[t]!.op(w, n), t => sides[targets[t]!.side]!.cpu());
        return results.map((result, t) => {
            checkErrors(sides[targets[t]!.side]!.kind, targets[t]!.what, result.firstError);
            return { ...result, cpuUs: (result.cost * 1000) / Math.max(1, result.total) };
        });
    };
    const each = (what: string, op: (side: Side) => Target['op']): Target[] => sides.map((side, i) => ({ side: i, op: op(side), what }));
    const seq = await measured(
        each('greet', side => () => side.call('tools/call', GREET)),
        1,
    );
    const par = await measured(
        each('greet', side => () => side.call('tools/call', GREET)),
        concurrency,
    );
    const metrics: Metrics[] = sides.map((_, i) => ({ seqP50: seq[i]!.p50, seqP99: seq[i]!.p99, greetRate: par[i]!.rate, greetP50: par[i]!.p50, greetP99: par[i]!.p99, greetCpuUs: par[i]!.cpuUs }));
    const floor = sides.some(side => side.kind === 'floor');
    if (floor && !options.floorCreates) {
        return metrics;
    }
    // Tasks that finish at once (seconds 0) with a short TTL: the rate of creation itself.
    const createParams = slowCompute(0, 'rate', { ttl: 60_000 });
    const create = await measured(
        each('create', side => () => side.call('tools/call', createParams)),
        concurrency,
    );
    if (floor) {
        return metrics.map((m, i) => ({ ...m, createRate: create[i]!.rate, createP50: create[i]!.p50, createP99: create[i]!.p99, createCpuUs: create[i]!.cpuUs }));
    }
    const getParams: string[][] = [];
    for (const side of sides) {
        const ids = options.getCompleted ? await createDoneTasks(side.call, liveTasksForGet, concurrency) : await createLongTasks(side.call, liveTasksForGet, concurrency, 'live');
        getParams.push(ids.map(taskId => JSON.stringify({ taskId })));
    }
    const poll = (method: string, i: number) => (_w: number, n: number) => sides[i]!.call(method, getParams[i]![n % getParams[i]!.length]!);
    const getTargets = sides.map((_, i): Target => ({ side: i, op: poll('tasks/get', i), what: 'tasks/get' }));
    // What a 2025-11-25 client asks to get what a 2026-07-28 tasks/get of a completed task carries: the result.
    const resultTargets = options.getCompleted ? sides.flatMap((side, i): Target[] => (side.kind === 'v2' ? [] : [{ side: i, op: poll('tasks/result', i), what: 'tasks/result' }])) : [];
    const polled = await measured([...getTargets, ...resultTargets], concurrency);
    return metrics.map((m, i) => {
        const get = polled[i]!;
        const r = resultTargets.findIndex(target => target.side === i);
        const result = r >= 0 ? polled[getTargets.length + r]! : undefined;
        return {
            ...(result ? { resultRate: result.rate, resultP50: result.p50, resultP99: result.p99, resultCpuUs: result.cpuUs } : {}),
            ...m,
            createRate: create[i]!.rate,
            createP50: create[i]!.p50,
            createP99: create[i]!.p99,
            createCpuUs: create[i]!.cpuUs,
            getRate: get.rate,
            getP50: get.p50,
            getP99: get.p99,
            getCpuUs: get.cpuUs,
        };
    });
}

export interface ThroughputOptions {
    /**
     * tasks/get over completed tasks instead of live ones (the revision experiment: 2026-07-28
     * inlines their result), and for a 2025-11-25 client also tasks/result over the same tasks.
     */
    getCompleted?: boolean;
    /** The floor answers a task-augmented call too (the stdio echo: the frames the wire needs, no task): measure its creation. */
    floorCreates?: boolean;
}

function checkErrors(kind: Kind, what: string, firstError: string | undefined): void {
    if (firstError) {
        throw new Error(`${kind} ${what}: ${firstError}`);
    }
}

/** The client a kind is measured with: none for the floor, a 2026-07-28 one for `v2`, else a 2025-11-25 session. */
async function sessionFor(kind: Kind, url: string, client: Poster): Promise<HttpMcpSession> {
    return kind === 'floor' ? HttpMcpSession.bare(url, client) : kind === 'v2' ? HttpMcpSession.client2026(url, client) : HttpMcpSession.open(url, client);
}

/** The CPU time (ms) so far that a kind's requests are charged with: with the Redis store, redis-server's too. */
function cpuOf(ctx: Context, kind: Kind, pid: number): () => number {
    const redisPid = kind === 'redis' ? ctx.programs.redis?.pid : undefined;
    return () => cpuMs(pid) + (redisPid ? cpuMs(redisPid) : 0);
}

/**
 * Starts one HTTP program of `kind` and opens its client's session. What stops them both goes on
 * `stops` before the session opens, so the caller's clean-up also covers a session that fails to open.
 */
async function openHttp(ctx: Context, kind: Kind, sockets: number, stops: (() => Promise<void>)[], capture = false): Promise<{ server: RunningServer; session: HttpMcpSession }> {
    const server = await startHttp(kind, ctx.programs, { capture });
    const client = poster(ctx, sockets);
    stops.push(async () => {
        client.close();
        await server.stop();
    });
    return { server, session: await sessionFor(kind, server.url, client) };
}

async function stopAll(stops: (() => Promise<void>)[]): Promise<void> {
    for (const stop of stops) {
        await stop();
    }
}

export async function httpThroughput(ctx: Context, kind: Kind, options: ThroughputOptions = {}): Promise<Metrics> {
    return (await httpThroughputOf(ctx, [kind], options))[0]!;
}

/** The HTTP throughput suite on one program per kind, side by side (see throughputSuite). */
export async function httpThroughputOf(ctx: Context, kinds: Kind[], options: ThroughputOptions = {}): Promise<Metrics[]> {
    const stops: (() => Promise<void>)[] = [];
    try {
        const sides: Side[] = [];
        for (const kind of kinds) {
            const { server, session } = await openHttp(ctx, kind, ctx.settings.concurrency, stops);
            sides.push({ kind, cpu: cpuOf(ctx, kind, server.pid), call: (method, params) => session.callRaw(method, params) });
        }
        return await throughputSuite(ctx, sides, options);
    } finally {
        await stopAll(stops);
    }
}

export async function stdioThroughput(ctx: Context, kind: Kind, options: ThroughputOptions = {}): Promise<Metrics> {
    return (await stdioThroughputOf(ctx, [kind], { floorCreates: true, ...options }))[0]!;
}

/** The stdio throughput suite on one program per kind, side by side (see throughputSuite). */
export async function stdioThroughputOf(ctx: Context, kinds: Kind[], options: ThroughputOptions = {}): Promise<Metrics[]> {
    const clients: StdioMcpClient[] = [];
    try {
        const sides: Side[] = [];
        for (const kind of kinds) {
            const client = startStdio(kind, ctx.programs);
            clients.push(client);
            if (kind === 'v2') {
                client.stateless = new Encoder2026();
            } else if (kind !== 'floor') {
                await client.initialize();
            }
            sides.push({ kind, cpu: cpuOf(ctx, kind, client.pid), call: (method, params) => client.callRaw(method, params) });
        }
        return await throughputSuite(ctx, sides, options);
    } finally {
        for (const client of clients) {
            await client.close();
        }
    }
}

/**
 * Completion → tasks/result: tasks that finish after 200 ms, each waited on with tasks/result at
 * once; latency = when the result arrived − the task's lastUpdatedAt (its completion), both read
 * with Date.now(), so each sample is off by less than 1 ms either way. Ours runs 4 at a time, so the
 * bench's own queueing stays out of the figure; stock runs 16 at a time, its ~1 s poll being what
 * the figure shows anyway and the samples taking that long each.
 */
export async function resultLatency(ctx: Context, kind: Kind): Promise<Metrics> {
    const server = await startHttp(kind, ctx.programs);
    const client = poster(ctx, 64);
    // Stock's ~1 s poll makes each of its samples slow, so it gets fewer, run more at a time (see above).
    const asOurs = kind !== 'baseline' || ctx.programs.baselineIsOurs;
    try {
        const session = await HttpMcpSession.open(server.url, client);
        return await resultSamples(session, session, asOurs ? ctx.settings.resultSamples.ours : ctx.settings.resultSamples.baseline, asOurs ? 4 : 16);
    } finally {
        client.close();
        await server.stop();
    }
}

/** The samples of resultLatency: each task is created in `creator` and its result awaited in `waiter`. */
export async function resultSamples(creator: HttpMcpSession, waiter: HttpMcpSession, samples: number, concurrency: number): Promise<Metrics> {
    const latencies: number[] = [];
    const params = slowCompute(0.2, 'result', { ttl: 60_000 });
    await pool(samples, concurrency, async () => {
        const created = await creator.callRaw('tools/call', params);
        const idJson = JSON.stringify({ taskId: (created.task as { taskId: string }).taskId });
        await waiter.callRaw('tasks/result', idJson);
        const arrived = epochNow();
        const task = await waiter.callRaw('tasks/get', idJson);
        latencies.push(arrived - Date.parse(task.lastUpdatedAt as string));
    });
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies) };
}

const CANCELLED_LINE = /^(\S+) INFO\s+\[slow_compute\] cancelled "cancel-(\d+)" at/;

/** tasks/cancel → the tool sees its abort (the slow_compute "cancelled" log line's timestamp). */
export async function cancelLatency(ctx: Context, kind: Kind): Promise<Metrics> {
    return (await cancelLatencyOf(ctx, [kind]))[0]!;
}

/** One program's part of the cancel measurement: when each cancel was sent and its abort logged. */
interface CancelSide {
    session: HttpMcpSession;
    ids: string[];
    sent: number[];
    observed: number[];
    rtts: number[];
}

/**
 * tasks/cancel → abort observed, on one program per kind; with several, their cancels take turns
 * (ABBA…), so both see the same load.
 */
export async function cancelLatencyOf(ctx: Context, kinds: Kind[]): Promise<Metrics[]> {
    const n = ctx.settings.cancelSamples;
    const stops: (() => Promise<void>)[] = [];
    const sides: CancelSide[] = [];
    let waiting = kinds.length * n;
    let allSeen: () => void = () => undefined;
    const done = new Promise<void>(resolve => (allSeen = resolve));
    try {
        for (const kind of kinds) {
            const { server, session } = await openHttp(ctx, kind, 32, stops, true);
            const side: CancelSide = { session, ids: new Array<string>(n), sent: new Array<number>(n), observed: new Array<number>(n), rtts: [] };
            sides.push(side);
            server.onLine = line => {
                const match = CANCELLED_LINE.exec(line);
                if (match) {
                    side.observed[Number(match[2])] = Date.parse(match[1]!);
                    if (--waiting === 0) {
                        allSeen();
                    }
                }
            };
            await pool(n, 16, async i => {
                side.ids[i] = taskIdOf(await side.session.callRaw('tools/call', slowCompute(86_400, `cancel-${i}`)));
            });
        }
        await delay(200);
        for (let i = 0; i < n; i++) {
            for (const side of inTurn(sides, i)) {
                side.sent[i] = epochNow();
                const t0 = performance.now();
                await side.session.call('tasks/cancel', { taskId: side.ids[i] });
                side.rtts.push(performance.now() - t0);
            }
        }
        await Promise.race([done, delay(2500)]);
    } finally {
        await stopAll(stops);
    }
    return sides.map(side => {
        const latencies = side.observed.map((at, i) => at - side.sent[i]!).filter(Number.isFinite);
        return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), observed: latencies.length / n, rttP50: percentile(side.rtts, 50), rttP99: percentile(side.rtts, 99) };
    });
}

/**
 * Many live tasks reporting progress every second, to one client with its GET stream open:
 * tasks/get latency meanwhile, the server's CPU, and how many progress notifications arrive.
 */
export async function progressLoad(ctx: Context, kind: Kind): Promise<Metrics> {
    const server = await startHttp(kind, ctx.programs);
    const client = poster(ctx, ctx.settings.concurrency);
    const count = ctx.settings.progressTasks;
    try {
        const session = await HttpMcpSession.open(server.url, client);
        const stream = await session.openStream('notifications/progress');
        const t0 = performance.now();
        const ids = await createLongTasks((method, params) => session.callRaw(method, params), count, ctx.settings.concurrency, 'progress', true);
        const createSeconds = (performance.now() - t0) / 1000;
        // Every task has ticked at least once before the window opens.
        await delay(ctx.settings.settleMs);
        const cpu0 = cpuMs(server.pid);
        const events0 = stream.count;
        const w0 = performance.now();
        const latencies: number[] = [];
        let n = 0;
        while (performance.now() - w0 < ctx.settings.progressWindowMs) {
            const params = JSON.stringify({ taskId: ids[(n++ * 7919) % ids.length] });
            const s = performance.now();
            await session.callRaw('tasks/get', params);
            latencies.push(performance.now() - s);
            await delay(2);
        }
        const seconds = (performance.now() - w0) / 1000;
        const cpu = (cpuMs(server.pid) - cpu0) / 10 / seconds;
        const delivered = (stream.count - events0) / seconds;
        stream.close();
        return { getP50: percentile(latencies, 50), getP99: percentile(latencies, 99), cpu, delivered, expected: count, createSeconds };
    } finally {
        client.close();
        await server.stop();
    }
}

/**
 * RSS slope per live (working) task between the first and last point, the tasks spread over
 * several sessions; then tasks/list (first page) from a new session with those tasks present.
 * Each slow_compute task ticks every second, so enough of them saturate the server: the run stops
 * at the first point reached after `memoryBudgetMs` and reports how many tasks it had.
 */
export async function memoryAndList(ctx: Context, kind: Kind): Promise<Metrics> {
    const server = await startHttp(kind, ctx.programs);
    const client = poster(ctx, ctx.settings.concurrency);
    const points: { x: number; y: number }[] = [];
    const sessionsCount = 10;
    try {
        const sessions = await Promise.all(Array.from({ length: sessionsCount }, () => HttpMcpSession.open(server.url, client)));
        // A client of its own with 20 tasks lists them (first page) among everyone else's.
        const fresh = await HttpMcpSession.open(server.url, client);
        for (let i = 0; i < 20; i++) {
            await fresh.callRaw('tools/call', slowCompute(86_400, `own-${i}`));
        }
        const listLatency = async () => {
            const latencies: number[] = [];
            for (let i = 0; i < 40; i++) {
                const s = performance.now();
                const page = await fresh.call('tasks/list');
                latencies.push(performance.now() - s);
                if (!Array.isArray(page.tasks) || page.tasks.length === 0) {
                    throw new Error(`${kind}: tasks/list returned no tasks`);
                }
            }
            return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
        };
        let atFirst = { p50: NaN, p99: NaN };
        let created = 0;
        const started = performance.now();
        for (const target of ctx.settings.memoryPoints) {
            if (points.length >= 2 && performance.now() - started > ctx.settings.memoryBudgetMs) {
                break;
            }
            const params = Array.from({ length: 64 }, (_, i) => slowCompute(86_400, `mem-${i}`));
            const from = created;
            await pool(target - from, ctx.settings.concurrency, async i => {
                const n = from + i;
                await sessions[n % sessionsCount]!.callRaw('tools/call', params[n % params.length]!);
            });
            created = target;
            // Let every new task reach its first tick, then read RSS.
            await delay(ctx.settings.settleMs);
            points.push({ x: created, y: rssBytes(server.pid) });
            if (points.length === 1) {
                atFirst = await listLatency();
            }
            ctx.log(`      ${kind}: ${created} live tasks, RSS ${(points[points.length - 1]!.y / 2 ** 20).toFixed(0)} MiB (${((performance.now() - started) / 1000).toFixed(0)} s)`);
        }
        const first = points[0]!;
        const last = points[points.length - 1]!;
        const perTask = (last.y - first.y) / (last.x - first.x);
        const fit = slope(points);

        const atLast = await listLatency();
        return {
            perTask,
            fit,
            rssFirst: first.y,
            rssLast: last.y,
            tasksFirst: first.x,
            tasksLast: last.x,
            listFirstP50: atFirst.p50,
            listFirstP99: atFirst.p99,
            listP50: atLast.p50,
            listP99: atLast.p99,
        };
    } finally {
        client.close();
        // Tens of thousands of tasks to cancel on a graceful stop: not worth waiting for.
        server.proc.kill('SIGKILL');
        await server.stop();
    }
}

/**
 * Spawn → {"url"} on stdout (HTTP), or spawn → the initialize response (stdio). For ours, also the
 * HTTP start of the minified bundle the VSIX ships (`esbuild.mjs --production`).
 */
export async function coldStart(ctx: Context, kind: Kind): Promise<Metrics> {
    const http: number[] = [];
    const stdio: number[] = [];
    const minified: number[] = [];
    for (let i = 0; i < ctx.settings.coldStarts; i++) {
        const t0 = performance.now();
        const server = await startHttp(kind, ctx.programs);
        http.push(performance.now() - t0);
        await server.stop();
        if (kind === 'ours') {
            const m0 = performance.now();
            const small = await startHttp(kind, { ...ctx.programs, ours: ctx.programs.oursMinified });
            minified.push(performance.now() - m0);
            await small.stop();
        }
        const s0 = performance.now();
        const client: StdioMcpClient = startStdio(kind, ctx.programs);
        await (kind === 'floor' ? client.call('ping') : client.initialize());
        stdio.push(performance.now() - s0);
        await client.close();
    }
    const metrics: Metrics = { httpP50: percentile(http, 50), httpMax: Math.max(...http), stdioP50: percentile(stdio, 50), stdioMax: Math.max(...stdio) };
    if (minified.length > 0) {
        metrics.minifiedP50 = percentile(minified, 50);
        metrics.minifiedMax = Math.max(...minified);
    }
    return metrics;
}

/** require(dist/extension.js) and activate() with a stub 'vscode' module, in fresh processes. */
export async function extensionActivation(ctx: Context): Promise<Metrics> {
    const activate: number[] = [];
    const load: number[] = [];
    const logged: number[] = [];
    for (let i = 0; i < ctx.settings.activations; i++) {
        const out = await new Promise<string>((resolve, reject) => {
            const proc = track(spawn(process.execPath, [ctx.programs.activate, `${ROOT}/dist/extension.js`], { stdio: ['ignore', 'pipe', 'pipe'], env: CHILD_ENV }));
            let text = '';
            let errText = '';
            proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
            proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (errText += chunk));
            proc.once('close', code => (code === 0 ? resolve(text) : reject(new Error(`activation probe exited ${code}: ${errText.slice(0, 500)}`))));
        });
        const result = JSON.parse(out) as { loadMs: number; activateMs: number; loggedMs: number | null };
        activate.push(result.activateMs);
        load.push(result.loadMs);
        if (result.loggedMs !== null) {
            logged.push(result.loggedMs);
        }
    }
    return { activateP50: percentile(activate, 50), activateMax: Math.max(...activate), loadP50: percentile(load, 50), loggedP50: percentile(logged, 50) };
}

/** Live heap per working task after full GCs, and in-process tasks/list latency (ours only). */
export async function heapProbe(ctx: Context): Promise<Metrics> {
    const [first, last] = ctx.settings.heapPoints;
    const out = await new Promise<string>((resolve, reject) => {
        const proc = track(spawn(process.execPath, ['--expose-gc', ctx.programs.heapProbe, String(first), String(last)], { stdio: ['ignore', 'pipe', 'pipe'], env: CHILD_ENV }));
        let text = '';
        let errText = '';
        proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (errText += chunk));
        proc.once('close', code => (code === 0 ? resolve(text) : reject(new Error(`heap probe exited ${code}: ${errText.slice(0, 500)}`))));
    });
    return JSON.parse(out) as Metrics;
}

/** A command's output flood and a cancel of many at once, measured in the server's process. */
export const COMMAND_FLOOD_MB = 200;
export const COMMAND_CANCEL_TASKS = 50;
/** The flood again under this log limit, so the running log's middle is left out again and again. */
export const COMMAND_BOUNDED_LOG_BYTES = 1024 * 1024;

export async function commandProbe(ctx: Context): Promise<Metrics> {
    const run = (args: string[]) =>
        new Promise<Metrics>((resolve, reject) => {
            const proc = track(spawn(process.execPath, [ctx.programs.commandProbe, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: CHILD_ENV }));
            let text = '';
            let errText = '';
            proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
            proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (errText += chunk));
            proc.once('close', code => (code === 0 ? resolve(JSON.parse(text) as Metrics) : reject(new Error(`command probe exited ${code}: ${errText.slice(0, 500)}`))));
        });
    const plain = await run([String(COMMAND_FLOOD_MB), String(COMMAND_CANCEL_TASKS)]);
    // Its own process: the first flood's grown heap would hide the second's growth.
    const redacted = await run([String(COMMAND_FLOOD_MB), '0', 'secret']);
    const floodAs = (prefix: string, metrics: Metrics) =>
        Object.fromEntries(Object.entries(metrics).filter(([key]) => key.startsWith('flood')).map(([key, value]) => [`${prefix}${key[0]!.toUpperCase()}${key.slice(1)}`, value]));
    const bounded = await run([String(COMMAND_FLOOD_MB), '0', `limit=${COMMAND_BOUNDED_LOG_BYTES}`]);
    return { ...plain, ...floodAs('secret', redacted), ...floodAs('bounded', bounded) };
}

/** Command groups stopped at once: each ignores SIGTERM, so each is watched through the grace and then killed. */
export const STOP_GROUPS = 100;
const STOP_GRACE_MS = 2000;

/** The server's event-loop delay while STOP_GROUPS groups stop at once, measured in its process. */
export async function stopProbe(ctx: Context): Promise<Metrics> {
    return new Promise<Metrics>((resolve, reject) => {
        const proc = track(spawn(process.execPath, [ctx.programs.stopProbe, String(STOP_GROUPS), String(STOP_GRACE_MS)], { stdio: ['ignore', 'pipe', 'pipe'], env: CHILD_ENV }));
        let text = '';
        let errText = '';
        proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (errText += chunk));
        proc.once('close', code => (code === 0 ? resolve(JSON.parse(text) as Metrics) : reject(new Error(`stop probe exited ${code}: ${errText.slice(0, 500)}`))));
    });
}

/**
 * What resumability costs per SSE stream (a call reporting progress once, then answering),
 * measured in one process against the same server with the replay window turned off: CPU per
 * stream, bytes on the wire, live heap held while the stream's events are in the window, and the
 * CPU of an event's id and its place in the window alone (see bench/programs/streamProbe.ts).
 */
export async function streamProbe(ctx: Context): Promise<Metrics> {
    const [perBlock, blocks] = ctx.settings.quick ? [500, 4] : [1000, 8];
    return new Promise<Metrics>((resolve, reject) => {
        const proc = track(spawn(process.execPath, ['--expose-gc', ctx.programs.streamProbe, String(perBlock), String(blocks)], { stdio: ['ignore', 'pipe', 'pipe'], env: CHILD_ENV }));
        let text = '';
        let errText = '';
        proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (errText += chunk));
        proc.once('close', code => (code === 0 ? resolve(JSON.parse(text) as Metrics) : reject(new Error(`stream probe exited ${code}: ${errText.slice(0, 500)}`))));
    });
}

/** Which raw client is cheaper: node:http (keep-alive Agent) or fetch, on the HTTP floor. */
export async function clientCost(ctx: Context): Promise<Metrics> {
    const server = await startHttp('floor', ctx.programs);
    const results: Metrics = {};
    try {
        for (let round = 0; round < ctx.settings.clientRounds; round++) {
            for (const which of ['node-http', 'fetch'] as const) {
                const client: Poster = which === 'fetch' ? new FetchPoster() : new NodeHttpPoster(ctx.settings.concurrency);
                const session = HttpMcpSession.bare(server.url, client);
                const clientCpu0 = process.cpuUsage();
                const run = await closedLoop(ctx.settings.concurrency, ctx.settings.warmupMs, ctx.settings.windowMs, () => session.callRaw('tools/call', GREET));
                const used = process.cpuUsage(clientCpu0);
                client.close();
                const key = which === 'fetch' ? 'fetch' : 'node';
                results[`${key}Rate${round}`] = run.rate;
                // Client CPU per request, microseconds (warm-up included in both numerator and ops).
                results[`${key}CpuUs${round}`] = (used.user + used.system) / Math.max(1, run.ops * ((ctx.settings.warmupMs + ctx.settings.windowMs) / ctx.settings.windowMs));
            }
        }
    } finally {
        await server.stop();
    }
    const best = (prefix: string, pick: (...values: number[]) => number) =>
        pick(...Array.from({ length: ctx.settings.clientRounds }, (_, round) => results[`${prefix}${round}`] ?? NaN));
    return { nodeRate: best('nodeRate', Math.max), fetchRate: best('fetchRate', Math.max), nodeCpuUs: best('nodeCpuUs', Math.min), fetchCpuUs: best('fetchCpuUs', Math.min) };
}
