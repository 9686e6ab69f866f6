/**
 * The soak: the mix of mix.ts, side by side, against an HTTP server on the memory store, a stdio
 * server, and two HTTP replicas sharing a real redis-server, one of which is SIGKILLed and
 * restarted twice (under its own --worker-id, then under the default id). It reports over time
 * (tasks by outcome, RSS and heap, fds, children, the temp folders, p50/p99), then lets the servers
 * idle, forces one collection to read the live heap, stops everything and looks for what is left:
 * processes that carry the soak's tag, files in the servers' temp folders.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startRedis } from '../support/redisHelpers.js';
import { prng } from '../support/lightRpc.js';
import { OUTCOMES, type Outcome } from './ledger.js';
import { leaveRunning, runMix, Site } from './mix.js';
import { filesUnder, SoakServer, taggedProcesses, type Sample, type ServerSetup } from './servers.js';

export interface SoakOptions {
    /** How long the load runs. */
    seconds: number;
    /** How long the servers idle after it before the last figures. */
    idleSeconds: number;
    /** How often a line of figures is printed. */
    everySeconds: number;
    /** The servers' --default-ttl in seconds (their own default, an hour, when not given): shorter, and the store reaches its steady size within the run. */
    ttlSeconds?: number;
    /** After each line of figures, force a full collection in every server: the next line's live heap (a leak grows it; what V8 merely keeps does not). */
    collect?: boolean;
    print: (line: string) => void;
}

export interface Point {
    at: number;
    site: string;
    counts: Record<Outcome, number>;
    sample?: Sample;
    p50?: number;
    p99?: number;
}

export interface SiteSummary {
    tasks: number;
    counts: Record<Outcome, number>;
    problems: string[];
    /** Failed requests (other than during a replica's restart, which is counted apart). */
    errors: string[];
    first?: Sample;
    peakRss: number;
    /** After the idle time, before the forced collection. */
    idle?: Sample;
    /** The live heap after a full collection at the end. */
    collectedHeap?: number;
}

export interface SoakSummary {
    seconds: number;
    sites: Record<string, SiteSummary>;
    points: Point[];
    /** What the restarted replica's log said each time it came back. */
    restarts: string[];
    leftoverProcesses: number[];
    leftoverFiles: string[];
}

const TOKEN = 'soak-token-0123456789abcdef';

export async function runSoak(options: SoakOptions): Promise<SoakSummary> {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-tasks-soak-')));
    const tag = randomUUID();
    const commands = join(root, 'commands.json');
    writeFileSync(
        commands,
        JSON.stringify({
            tools: [
                {
                    name: 'build',
                    description: 'Prints 40 lines over about two seconds, then exits 0 (the soak).',
                    command: [process.execPath, '-e', 'let n = 0; const t = setInterval(() => { console.log("step " + ++n); if (n === 40) { clearInterval(t); } }, 50);', '{round}'],
                    parameters: { round: { type: 'string', description: 'Which run.' } },
                    whenBusy: 'queue',
                },
            ],
        }),
    );
    const ttl = options.ttlSeconds === undefined ? [] : ['--default-ttl', `${options.ttlSeconds}s`];
    const setup = (name: string, args: string[]): ServerSetup => ({ name, args: ['--commands', commands, '--token', TOKEN, ...ttl, ...args], root, tag, token: TOKEN });
    const redis = await startRedis();
    const memory = new SoakServer(setup('memory', []), 'http');
    const stdio = new SoakServer({ ...setup('stdio', []), args: ['--commands', commands, ...ttl] }, 'stdio');
    const store = ['--store', redis.url, '--store-prefix', `soak-${tag}:`];
    const replicaA = new SoakServer(setup('replica-a', [...store, '--worker-id', 'replica-a']), 'http');
    const replicaB = new SoakServer(setup('replica-b', store), 'http');
    const servers = [memory, stdio, replicaA, replicaB];
    const sites = [new Site('memory', [memory]), new Site('stdio', [stdio]), new Site('redis', [replicaA, replicaB])];
    const summary: SoakSummary = { seconds: options.seconds, sites: {}, points: [], restarts: [], leftoverProcesses: [], leftoverFiles: [] };
    const started = Date.now();
    const deadline = started + options.seconds * 1000;
    let reporting: NodeJS.Timeout | undefined;
    try {
        await Promise.all(servers.map(s => s.start()));
        for (const site of sites) {
            summary.sites[site.name] = { tasks: 0, counts: site.ledger.counts, problems: site.ledger.problems, errors: [], peakRss: 0 };
        }
        const report = () => {
            const at = Math.round((Date.now() - started) / 1000);
            for (const site of sites) {
                const server = site.servers.find(s => s.pid !== undefined) ?? site.servers[0]!;
                const sample = site.servers.length > 1 ? combined(site.servers.map(s => s.sample())) : server.sample();
                const sorted = site.latencies.sort((a, b) => a - b);
                site.latencies = [];
                const point: Point = { at, site: site.name, counts: { ...site.ledger.counts }, sample, p50: pct(sorted, 0.5), p99: pct(sorted, 0.99) };
                summary.points.push(point);
                const entry = summary.sites[site.name]!;
                entry.first ??= sample;
                entry.peakRss = Math.max(entry.peakRss, sample?.rss ?? 0);
                options.print(formatPoint(point));
            }
            if (options.collect) {
                servers.forEach(server => server.collect());
            }
        };
        reporting = setInterval(report, options.everySeconds * 1000);
        const random = prng(0x50a4);
        const mixes = sites.map(site => runMix(site, deadline, random, 'build'));
        const restarts = restartTwice(sites[2]!, options.seconds, started, summary.restarts, options.print);
        const results = await Promise.all(mixes);
        await restarts;
        results.forEach(({ errors }, i) => (summary.sites[sites[i]!.name]!.errors = errors));
        for (const site of sites) {
            site.ledger.closeOpen();
            summary.sites[site.name]!.tasks = site.ledger.total;
        }
        report();
        options.print(`[soak] load over at ${Math.round((Date.now() - started) / 1000)} s; idling ${options.idleSeconds} s`);
        await delay(options.idleSeconds * 1000);
        clearInterval(reporting);
        for (const site of sites) {
            summary.sites[site.name]!.idle = site.servers.length > 1 ? combined(site.servers.map(s => s.sample())) : site.servers[0]!.sample();
            site.servers.forEach(s => s.collect());
        }
        await delay(1500);
        for (const site of sites) {
            const heaps = site.servers.map(s => s.sample()?.collectedHeap ?? 0);
            summary.sites[site.name]!.collectedHeap = heaps.reduce((a, b) => a + b, 0);
        }
        report();
    } finally {
        clearInterval(reporting);
        await Promise.all(servers.map(s => s.stop().catch(() => undefined)));
        await redis.stop();
        // A child of a stopped server is given its grace to go; then whatever is left was leaked.
        await delay(1000);
        summary.leftoverProcesses = taggedProcesses(tag);
        summary.leftoverFiles = servers.flatMap(s => filesUnder(s.tmp).map(f => `${s.setup.name}: ${f}`));
        rmSync(root, { recursive: true, force: true });
    }
    return summary;
}

/**
 * Replica B starts under the default worker id. At a third of the run it is SIGKILLed and started
 * again under a fixed --worker-id (its old tasks can only end by their lapsed lease); at two thirds,
 * SIGKILLed and started again under that same id (its old tasks end at once, by the restart). Each
 * time, what either replica logged of the tasks it left.
 */
async function restartTwice(site: Site, seconds: number, started: number, said: string[], print: (line: string) => void): Promise<void> {
    const [other, replica] = site.servers as [SoakServer, SoakServer];
    const fixedId = [...replica.setup.args, '--worker-id', 'replica-b'];
    for (const [third, how] of [
        [1, 'killed under the default worker id, started again under --worker-id replica-b'],
        [2, 'killed under --worker-id replica-b, started again under the same id'],
    ] as const) {
        const at = started + (seconds * 1000 * third) / 3;
        await delay(Math.max(0, at - Date.now()));
        const seen = [replica.log.lines.length, other.log.lines.length];
        const left = await leaveRunning(site, 1, 0, 2);
        await replica.kill();
        print(`[soak] SIGKILLed replica-b at ${Math.round((Date.now() - started) / 1000)} s: ${how}`);
        await replica.start(fixedId);
        // The lease (10 s by default) lapses and a replica's reaper acts, or the restart already did.
        await Promise.all([left.ended, delay(12_000)]);
        const lines = [replica.log.lines.slice(seen[0]), other.log.lines.slice(seen[1])].flat().filter(line => /\[store\] worker|\[commands\] removed/.test(line));
        said.push(`${how}: ${lines.map(line => line.replace(/^\S+ +/, '')).join(' | ') || '(nothing was left running)'}`);
    }
}

function combined(samples: (Sample | undefined)[]): Sample | undefined {
    const present = samples.filter((s): s is Sample => s !== undefined);
    if (present.length === 0) {
        return undefined;
    }
    const sum = (key: keyof Sample) => present.reduce((total, s) => total + (s[key] ?? 0), 0);
    return { rss: sum('rss'), heapUsed: sum('heapUsed'), collectedHeap: present.some(s => s.collectedHeap !== undefined) ? sum('collectedHeap') : undefined, fds: sum('fds'), children: sum('children'), tmpBytes: Math.max(...present.map(s => s.tmpBytes)) };
}

function pct(sorted: number[], q: number): number | undefined {
    return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : undefined;
}

const MB = 1024 * 1024;

export function formatPoint(point: Point): string {
    const c = point.counts;
    const s = point.sample;
    const ms = (v?: number) => (v === undefined ? '-' : v.toFixed(1));
    return (
        `[soak] ${String(point.at).padStart(5)} s ${point.site.padEnd(6)} ` +
        OUTCOMES.map(o => `${o === 'lost' ? 'LOST' : o} ${c[o]}`).join(' ') +
        (s ? ` | rss ${(s.rss / MB).toFixed(1)} MB heap ${(s.heapUsed / MB).toFixed(1)} MB${s.collectedHeap === undefined ? '' : ` (live ${(s.collectedHeap / MB).toFixed(1)} MB)`} fds ${s.fds} children ${s.children} tmp ${(s.tmpBytes / 1024).toFixed(0)} KB` : ' | (no sample)') +
        ` | p50 ${ms(point.p50)} ms p99 ${ms(point.p99)} ms`
    );
}
