// npm run bench [-- --help] [--quick] [--only id,id] [--client node-http|fetch] [--rounds N] [--ours JS] [--vs JS] [--write]
//
// Measures our server (dist/server.js) against a stock SDK 1.32.2 server (bench/programs/baseline.ts)
// and bare floors on loopback, and its Redis and SQLite stores against its in-memory store, alternating the
// kinds (A/B/A/B) to cancel drift; prints the tables and saves the report under bench/results/
// (--write also rewrites docs/BENCHMARKS.md). See that file for what each figure means.
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
    cancelLatency,
    clientCost,
    coldStart,
    commandProbe,
    extensionActivation,
    heapProbe,
    httpThroughput,
    memoryAndList,
    progressLoad,
    resultLatency,
    stdioThroughput,
    stopProbe,
    streamProbe,
    type Context,
    type Metrics,
    type Settings,
} from './lib/experiments.js';
import { durableSkipReason, durableVsMemory } from './lib/durableExperiment.js';
import { DURABLE_HEADERS, durableLines, durableRows } from './lib/durableRows.js';
import { burstStarts } from './lib/burstExperiment.js';
import { gatewayMemory, gatewaySkipReason, gatewayVsDirect } from './lib/gatewayExperiment.js';
import { GATEWAY_HEADERS, gatewayLines, gatewayRows } from './lib/gatewayRows.js';
import { gatewayVsProxies } from './lib/proxyExperiment.js';
import { PROXY_EXP, PROXY_HEADERS, proxyLines } from './lib/proxyRows.js';
import { redisSkipReason, redisVersion, redisVsMemory } from './lib/redisExperiment.js';
import { inTurn } from './lib/load.js';
import { REDIS_HEADERS, redisLines, redisRows } from './lib/redisRows.js';
import { revisionVsSession } from './lib/revisionExperiment.js';
import { REVISION_HEADERS, revisionLines, revisionRows } from './lib/revisionRows.js';
import { consoleTable, MAIN_HEADERS, markdownTable, machineText, rawRuns, tableLines, writeReport, type Results } from './lib/report.js';
import { rows } from './lib/rows.js';
import { parseArgs, RESULTS_DIR, settingsFor, USAGE, type Args } from './lib/settings.js';
import { fmt } from './lib/stats.js';
import { buildPrograms, describeMachine, killAll, OURS_JS, ROOT, type Kind } from './lib/targets.js';

interface Experiment {
    id: string;
    title: string;
    kinds: Kind[];
    /** Rounds of alternation; undefined = the run's default. */
    rounds?: number;
    timeoutMs: number;
    /** Why the experiment cannot run on this machine, if it cannot. */
    skip?: () => string | false;
    run?(ctx: Context, kind: Kind): Promise<Metrics>;
    /** Instead of `run`: one round of all kinds at once (side by side), their metrics in the order of `kinds`. */
    runTogether?(ctx: Context, kinds: Kind[]): Promise<Metrics[]>;
}

const EXPERIMENTS: Experiment[] = [
    { id: 'http', title: 'HTTP: greet, task creation, tasks/get', kinds: ['ours', 'baseline', 'floor'], timeoutMs: 120_000, run: httpThroughput },
    { id: 'stdio', title: 'stdio: greet, task creation, tasks/get', kinds: ['ours', 'baseline', 'floor'], timeoutMs: 120_000, run: stdioThroughput },
    { id: 'result', title: 'completion → tasks/result', kinds: ['ours', 'baseline'], timeoutMs: 60_000, run: resultLatency },
    { id: 'cancel', title: 'tasks/cancel → abort observed', kinds: ['ours', 'baseline'], timeoutMs: 60_000, run: cancelLatency },
    { id: 'progress', title: 'live tasks reporting progress', kinds: ['ours', 'baseline'], rounds: 1, timeoutMs: 120_000, run: progressLoad },
    { id: 'memory', title: 'memory per live task; tasks/list among other clients’ tasks', kinds: ['ours', 'baseline'], rounds: 1, timeoutMs: 150_000, run: memoryAndList },
    { id: 'heap', title: 'in-process probe: live heap per task, tasks/list', kinds: ['ours'], rounds: 1, timeoutMs: 120_000, run: ctx => heapProbe(ctx) },
    { id: 'commands', title: 'command tools: 200 MB of output, 50 cancelled at once (in-process)', kinds: ['ours'], rounds: 1, timeoutMs: 180_000, run: ctx => commandProbe(ctx) },
    { id: 'stops', title: 'command tools: 100 groups that ignore SIGTERM stopped at once (in-process)', kinds: ['ours'], rounds: 1, timeoutMs: 120_000, run: ctx => stopProbe(ctx) },
    { id: 'resume', title: 'resumable SSE streams: what ids, priming and the replay window cost per stream (in-process)', kinds: ['ours'], rounds: 1, timeoutMs: 120_000, run: ctx => streamProbe(ctx) },
    { id: 'burst', title: 'command tools: 500 start_<tool> calls at once, another client pinging (HTTP)', kinds: ['ours'], rounds: 1, timeoutMs: 180_000, run: ctx => burstStarts(ctx) },
    { id: 'coldstart', title: 'cold start', kinds: ['ours', 'baseline', 'floor'], timeoutMs: 60_000, run: coldStart },
    { id: 'extension', title: 'extension activation', kinds: ['ours'], rounds: 1, timeoutMs: 60_000, run: ctx => extensionActivation(ctx) },
    {
        id: 'revision',
        title: '2026-07-28 client vs 2025-11-25 client (ours both times): greet, task creation, tasks/get, cancel',
        kinds: ['ours', 'v2'],
        timeoutMs: 480_000,
        runTogether: revisionVsSession,
    },
    { id: 'redis', title: 'Redis store vs in-memory store (ours both times)', kinds: ['ours', 'redis'], timeoutMs: 120_000, skip: redisSkipReason, run: redisVsMemory },
    {
        id: 'durable',
        title: 'SQLite store vs in-memory store (ours both times)',
        kinds: ['ours', 'sqlite'],
        timeoutMs: 240_000,
        skip: durableSkipReason,
        runTogether: durableVsMemory,
    },
    {
        id: 'gateway',
        title: 'gateway: server-everything’s echo through ours (--wrap) vs directly, over stdio',
        kinds: ['gateway', 'direct'],
        timeoutMs: 120_000,
        skip: gatewaySkipReason,
        runTogether: gatewayVsDirect,
    },
    {
        id: PROXY_EXP,
        title: 'gateway: server-everything’s echo through ours, mcp-proxy 6.7.19 and supergateway 4.0.0, over Streamable HTTP',
        kinds: ['gateway', 'mcp-proxy', 'supergateway'],
        // Includes installing the two proxies from npm the first time.
        timeoutMs: 240_000,
        skip: gatewaySkipReason,
        runTogether: gatewayVsProxies,
    },
    { id: 'gatewaymem', title: 'gateway: memory per wrapped running task', kinds: ['gateway'], rounds: 1, timeoutMs: 150_000, skip: gatewaySkipReason, run: ctx => gatewayMemory(ctx) },
];

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms)));
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Warns when dist/server.js is older than the server sources it is built from. */
function staleBuildWarning(): string | undefined {
    const built = statSync(OURS_JS, { throwIfNoEntry: false })?.mtimeMs;
    if (built === undefined) {
        return 'dist/server.js is missing: run `npm run build` first';
    }
    const newest = (dir: string): number =>
        readdirSync(dir, { withFileTypes: true }).reduce((max, entry) => Math.max(max, entry.isDirectory() ? newest(join(dir, entry.name)) : statSync(join(dir, entry.name)).mtimeMs), 0);
    return newest(join(ROOT, 'server/src')) > built ? 'dist/server.js is older than server/src: run `npm run build` to measure the current code' : undefined;
}

const PREAMBLE = `# Benchmarks

\`npm run bench\` (\`tsx bench/run.ts\`) measures the server on loopback against a server written only with SDK 1.32.2's stock
tasks support and against bare floors. It is not part of \`npm test\`.
Only \`npm run bench -- --write\` rewrites this file; a run without it saves its report under bench/results/ (git-ignored).
\`npm run bench -- --help\` lists every flag.`;

function record(byKind: Map<Kind, Metrics[]>, kind: Kind, metrics: Metrics): void {
    byKind.set(kind, [...(byKind.get(kind) ?? []), metrics]);
}

function summaryOf(metrics: Metrics): string {
    return Object.entries(metrics)
        .map(([key, value]) => `${key}=${fmt(value)}`)
        .join(' ');
}

/** One run of an experiment (one kind, or all together) under its time limit; a failure is logged and recorded, not thrown. */
async function runRound(ctx: Context, experiment: Experiment, label: string, round: number, failures: string[], run: () => Promise<string>): Promise<void> {
    const t0 = performance.now();
    try {
        const summary = await withTimeout(run(), experiment.timeoutMs, `${experiment.id} ${label}`);
        ctx.log(`  ${round + 1}. ${label.padEnd(8)} ${summary}  (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    } catch (err) {
        const message = `${experiment.id} ${label} round ${round + 1}: ${err instanceof Error ? err.message : String(err)}`;
        failures.push(message);
        ctx.log(`  ${round + 1}. ${label.padEnd(8)} FAILED: ${message}`);
        // A timed-out experiment may still own a server: stop it before the next one.
        killAll();
    }
}

/** Runs one experiment's kinds, alternating them for its rounds; a failed run is recorded, not fatal. */
async function runExperiment(ctx: Context, experiment: Experiment, rounds: number, failures: string[]): Promise<Map<Kind, Metrics[]>> {
    const byKind = new Map<Kind, Metrics[]>();
    ctx.log(`${experiment.title} [${experiment.id}], ${rounds} round(s): ${experiment.kinds.join('/')}`);
    for (let round = 0; round < rounds; round++) {
        if (experiment.runTogether) {
            // Which kind goes first in each turn alternates by round.
            const kinds = [...inTurn(experiment.kinds, round)];
            await runRound(ctx, experiment, kinds.join('+'), round, failures, async () => {
                const metrics = await experiment.runTogether!(ctx, kinds);
                kinds.forEach((kind, i) => record(byKind, kind, metrics[i]!));
                return metrics.map((m, i) => `${kinds[i]}: ${summaryOf(m)}`).join('\n       ');
            });
            continue;
        }
        for (const kind of experiment.kinds) {
            await runRound(ctx, experiment, kind, round, failures, async () => {
                const metrics = await experiment.run!(ctx, kind);
                record(byKind, kind, metrics);
                return summaryOf(metrics);
            });
        }
    }
    return byKind;
}

interface Run {
    args: Args;
    settings: Settings;
    results: Results;
    rounds: number;
    seconds: number;
    costs?: Metrics;
    failures: string[];
    stale?: string;
    machine: ReturnType<typeof describeMachine>;
    redis?: string;
}

/** The generated block of docs/BENCHMARKS.md. */
function generatedBlock(run: Run): string {
    const { args, settings, results, rounds, costs, failures } = run;
    const main = rows(settings).filter(row => results.has(row.exp));
    const redis = results.has('redis') ? redisRows(settings) : [];
    const durable = results.has('durable') ? durableRows(settings) : [];
    return [
        `## Latest run (${args.quick ? '`--quick`' : 'default'}), ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
        '',
        `Command: \`npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\` (took ${run.seconds.toFixed(0)} s). Machine:`,
        '',
        machineText(run.machine, loadavg().map(v => Math.round(v * 100) / 100)),
        ...(run.stale ? [`- **Warning:** ${run.stale}`] : []),
        // A run of side experiments only (--only redis, durable, …) has no main table to show.
        ...(main.length
            ? [
                  '',
                  `Medians of ${rounds} alternating round(s) (ours, stock, floor${rounds > 1 ? ', then again' : ''}); the progress, memory and heap experiments and the extension probe run once. Ratios are ours ÷ stock and ours ÷ floor of the same run.`,
                  '',
                  markdownTable(tableLines(results, main), MAIN_HEADERS),
              ]
            : []),
        ...(costs
            ? [
                  '',
                  `HTTP client: node:http with a keep-alive Agent did ${fmt(costs.nodeRate!)} req/s against the floor at ${settings.concurrency} in flight using ${fmt(costs.nodeCpuUs!)} µs of client CPU per request; global fetch (undici) did ${fmt(costs.fetchRate!)} req/s at ${fmt(costs.fetchCpuUs!)} µs. The figures use ${settings.client === 'fetch' ? 'fetch' : 'node:http'}.`,
              ]
            : []),
        ...(redis.length
            ? [
                  '',
                  '### Redis store vs in-memory store',
                  '',
                  `Ours both times, over HTTP: \`node dist/server.js --http\` with the in-memory store, and the same with \`--store redis://127.0.0.1:PORT --bind session\` against one local redis-server ${run.redis} (no persistence) on loopback, on the same machine and CPUs as the server and the bench. Each run gets a fresh server and an empty Redis; medians of ${rounds} alternating round(s) (memory, Redis${rounds > 1 ? ', then again' : ''}). CPU/req adds redis-server's CPU to the server's. The overhead is Redis ÷ memory: above 1× a latency or CPU/req is that much higher with Redis, below 1× a rate is that much lower.`,
                  '',
                  markdownTable(redisLines(results, redis), REDIS_HEADERS),
              ]
            : []),
        ...(durable.length
            ? [
                  '',
                  '### SQLite store vs in-memory store',
                  '',
                  `Ours both times, over HTTP and stdio: \`node dist/server.js\` with the in-memory store, and the same with \`--store sqlite --data-dir DIR\`, DIR a fresh folder under ${tmpdir()} for each server start (removed when it exits). SQLite runs in the server's process, so CPU/req is the server's alone. Each round starts a fresh server of each store and runs them side by side, each loaded phase taking them in turns (as in the revision experiment); ${rounds} round(s), which store goes first alternating. The cells are medians over rounds; the overhead is SQLite ÷ memory, the median of the rounds' own ratios: above 1× a latency or CPU/req is that much higher with SQLite, below 1× a rate is that much lower. The goals are on the rates.`,
                  '',
                  markdownTable(durableLines(results, durable), DURABLE_HEADERS),
              ]
            : []),
        ...(results.has('revision')
            ? [
                  '',
                  '### 2026-07-28 vs 2025-11-25',
                  '',
                  `Ours both times (\`node dist/server.js\`, in-memory store): a 2025-11-25 client (initialize, one session) and a 2026-07-28 client with the tasks extension (no session; \`_meta\` with version, capabilities and client info on every request, and over HTTP the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers), each against a fresh server, medians of ${rounds} alternating round(s). tasks/get reads completed tasks in both, so a 2026-07-28 answer carries the result inline. The goal: each within 10 % of the 2025-11-25 figure, held to the server's CPU per request (sequential rows and cancel: the latency of one request alone); the rate ratio is shown beside it.`,
                  '',
                  markdownTable(revisionLines(results, revisionRows(settings)), REVISION_HEADERS),
              ]
            : []),
        ...(results.has('gateway') || results.has('gatewaymem')
            ? [
                  '',
                  '### Gateway',
                  '',
                  `Ours as a gateway (\`node dist/server.js --stdio --wrap -- node <server-everything> stdio\`, and \`--http\` for memory) in front of @modelcontextprotocol/server-everything, against that server called directly over the same transport. Throughput: both side by side, taken in turns, medians of ${rounds} round(s); CPU/call adds the downstream's CPU to the gateway's. Memory: the gateway's RSS slope over running task-augmented calls of trigger-long-running-operation (the downstream's memory not counted), one run.`,
                  '',
                  markdownTable(gatewayLines(results, gatewayRows(settings).filter(row => results.has(row.exp))), GATEWAY_HEADERS),
              ]
            : []),
        ...(results.has(PROXY_EXP)
            ? [
                  '',
                  '### Gateway against mcp-proxy and supergateway',
                  '',
                  `server-everything's echo through ours (\`node dist/server.js --http --wrap -- node <server-everything> stdio\`), mcp-proxy 6.7.19 (\`--server stream\`) and supergateway 4.0.0 (\`--outputTransport streamableHttp --stateful\`), each wrapping its own server-everything, over Streamable HTTP with the same client (one session each), taken in turns, medians of ${rounds} round(s). The ratios are ours ÷ the proxy for calls/s and the proxy ÷ ours for p50 (above 1× ours is ahead), medians of the rounds' own ratios.`,
                  '',
                  markdownTable(proxyLines(results, settings.concurrency), PROXY_HEADERS),
              ]
            : []),
        failures.length ? `\nFailures:\n${failures.map(f => `- ${f}`).join('\n')}` : '',
        '',
        '<details><summary>Every run (main metric of each row, in run order)</summary>',
        ...(main.length ? ['', rawRuns(results, main)] : []),
        ...(redis.length
            ? [
                  '',
                  rawRuns(results, redis, [
                      ['redis', 'Redis runs'],
                      ['ours', 'memory runs'],
                  ]),
              ]
            : []),
        ...(durable.length
            ? [
                  '',
                  rawRuns(results, durable, [
                      ['sqlite', 'SQLite runs'],
                      ['ours', 'memory runs'],
                  ]),
              ]
            : []),
        '',
        '</details>',
    ].join('\n');
}

async function main(): Promise<void> {
    let args: Args;
    try {
        args = parseArgs(process.argv.slice(2));
        const known = new Set(['client', ...EXPERIMENTS.map(e => e.id)]);
        const unknown = [...(args.only ?? [])].filter(id => !known.has(id));
        if (unknown.length) {
            throw new Error(`--only: no experiment ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
        }
    } catch (err) {
        console.error(`npm run bench: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
        process.exitCode = 2;
        return;
    }
    if (args.help) {
        process.stdout.write(USAGE);
        return;
    }
    const settings = settingsFor(args.quick, args.client);
    const machine = describeMachine();
    const started = performance.now();
    const log = (message: string) => console.log(message);
    const stale = staleBuildWarning();
    if (stale) {
        console.warn(`warning: ${stale}`);
    }
    log(`mcp-tasks bench (${args.quick ? 'quick' : 'default'}): ${machine.cores} cores, node ${machine.node}, load ${machine.loadAtStart.join(' ')}`);
    const programs = await buildPrograms({ ours: args.ours, vs: args.vs });
    if (args.ours || args.vs) {
        log(`ours = ${programs.ours}; "stock" column = ${programs.baselineIsOurs ? programs.baseline : 'the stock SDK baseline'}`);
    }
    const ctx: Context = { programs, settings, log };
    const results: Results = new Map();
    const failures: string[] = [];
    // --quick alternates once (ours, stock, floor); the default twice.
    const rounds = args.rounds ?? (args.quick ? 1 : 2);
    try {
        let costs: Metrics | undefined;
        if (!args.only || args.only.has('client')) {
            log('client: node:http keep-alive Agent vs fetch (undici), on the HTTP floor');
            costs = await clientCost(ctx);
            log(`  node:http ${fmt(costs.nodeRate!)}/s, ${fmt(costs.nodeCpuUs!)} µs client CPU per request; fetch ${fmt(costs.fetchRate!)}/s, ${fmt(costs.fetchCpuUs!)} µs`);
        }
        for (const experiment of EXPERIMENTS.filter(e => !args.only || args.only.has(e.id))) {
            const skipped = experiment.skip?.();
            if (skipped) {
                log(`${experiment.title} [${experiment.id}]: skipped, ${skipped}`);
                continue;
            }
            results.set(experiment.id, await runExperiment(ctx, experiment, experiment.rounds ?? rounds, failures));
        }
        const seconds = (performance.now() - started) / 1000;
        const shown = rows(settings).filter(row => results.has(row.exp));
        if (shown.length) {
            log('');
            log(consoleTable(tableLines(results, shown), MAIN_HEADERS));
        }
        if (results.has('revision')) {
            log('');
            log(consoleTable(revisionLines(results, revisionRows(settings)), REVISION_HEADERS));
        }
        if (results.has('redis')) {
            log('');
            log(consoleTable(redisLines(results, redisRows(settings)), REDIS_HEADERS));
        }
        if (results.has('durable')) {
            log('');
            log(consoleTable(durableLines(results, durableRows(settings)), DURABLE_HEADERS));
        }
        const gatewayShown = gatewayRows(settings).filter(row => results.has(row.exp));
        if (gatewayShown.length) {
            log('');
            log(consoleTable(gatewayLines(results, gatewayShown), GATEWAY_HEADERS));
        }
        if (results.has(PROXY_EXP)) {
            log('');
            log(consoleTable(proxyLines(results, settings.concurrency), PROXY_HEADERS));
        }
        log(`\n${seconds.toFixed(0)} s; load average now ${loadavg().map(v => v.toFixed(2)).join(' ')}`);
        for (const failure of failures) {
            log(`FAILED: ${failure}`);
        }
        const redis = results.has('redis') ? redisVersion() : undefined;
        const block = generatedBlock({ args, settings, results, rounds, seconds, costs, failures, stale, machine, redis });
        mkdirSync(join(ROOT, RESULTS_DIR), { recursive: true });
        const saved = join(RESULTS_DIR, `${new Date().toISOString().replace(/[:.]/g, '-')}${args.quick ? '-quick' : ''}.md`);
        writeReport(join(ROOT, saved), block, PREAMBLE);
        log(`saved ${saved}`);
        if (args.write) {
            writeReport(join(ROOT, 'docs/BENCHMARKS.md'), block, PREAMBLE);
            log('wrote docs/BENCHMARKS.md');
        }
    } finally {
        killAll();
        programs.dispose();
    }
    if (failures.length) {
        process.exitCode = 1;
    }
}

main().catch(err => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
});
