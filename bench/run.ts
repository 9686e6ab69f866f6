// npm run bench [-- --quick] [--only id,id] [--client node-http|fetch] [--rounds N] [--no-write] [--ours JS] [--vs JS]
//
// Measures our server (dist/server.js) against a stock SDK 1.32.2 server (bench/programs/baseline.ts)
// and bare floors on loopback, alternating ours/stock (A/B/A/B) to cancel drift, prints the table
// and writes docs/BENCHMARKS.md. See that file for what each figure means.
import { statSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
    cancelLatency,
    clientCost,
    coldStart,
    extensionActivation,
    heapProbe,
    httpThroughput,
    memoryAndList,
    progressLoad,
    resultLatency,
    stdioThroughput,
    type Context,
    type Metrics,
    type Settings,
} from './lib/experiments.js';
import { consoleTable, markdownTable, machineText, rawRuns, tableLines, writeReport, type Results, type Row } from './lib/report.js';
import { fmt } from './lib/stats.js';
import { buildPrograms, describeMachine, killAll, OURS_JS, ROOT, type Kind } from './lib/targets.js';

interface Experiment {
    id: string;
    title: string;
    kinds: Kind[];
    /** Rounds of alternation; undefined = the run's default. */
    rounds?: number;
    timeoutMs: number;
    run(ctx: Context, kind: Kind): Promise<Metrics>;
}

const EXPERIMENTS: Experiment[] = [
    { id: 'http', title: 'HTTP: greet, task creation, tasks/get', kinds: ['ours', 'baseline', 'floor'], timeoutMs: 120_000, run: httpThroughput },
    { id: 'stdio', title: 'stdio: greet, task creation, tasks/get', kinds: ['ours', 'baseline', 'floor'], timeoutMs: 120_000, run: stdioThroughput },
    { id: 'result', title: 'completion → tasks/result', kinds: ['ours', 'baseline'], timeoutMs: 60_000, run: resultLatency },
    { id: 'cancel', title: 'tasks/cancel → abort observed', kinds: ['ours', 'baseline'], timeoutMs: 60_000, run: cancelLatency },
    { id: 'progress', title: 'live tasks reporting progress', kinds: ['ours', 'baseline'], rounds: 1, timeoutMs: 120_000, run: progressLoad },
    { id: 'memory', title: 'memory per live task; tasks/list among other clients’ tasks', kinds: ['ours', 'baseline'], rounds: 1, timeoutMs: 150_000, run: memoryAndList },
    { id: 'heap', title: 'in-process probe: live heap per task, tasks/list', kinds: ['ours'], rounds: 1, timeoutMs: 120_000, run: ctx => heapProbe(ctx) },
    { id: 'coldstart', title: 'cold start', kinds: ['ours', 'baseline', 'floor'], timeoutMs: 60_000, run: coldStart },
    { id: 'extension', title: 'extension activation', kinds: ['ours'], rounds: 1, timeoutMs: 60_000, run: ctx => extensionActivation(ctx) },
];

const atMost = (limit: number) => (v: number) => (Number.isFinite(v) ? v <= limit : undefined);
const fraction = (v: { ours: number; floor: number }) => v.ours / v.floor;

function rows(settings: Settings): Row[] {
    const n = settings.concurrency;
    const live = settings.liveTasksForGet;
    const throughput = (transport: 'http' | 'stdio', goals: [number, number, number]): Row[] => [
        {
            figure: `greet throughput, ${n} in flight, one session`,
            transport,
            exp: transport,
            key: 'greetRate',
            kind: 'rate',
            extra: [
                ['greetP50', 'p50 {} ms'],
                ['greetP99', 'p99 {} ms'],
                ['greetCpuUs', '{} µs CPU/req'],
            ],
            goal: { text: `≥ ${goals[0] * 100} % of floor`, met: v => (Number.isFinite(fraction(v)) ? fraction(v) >= goals[0] : undefined) },
        },
        {
            figure: `task creation rate (slow_compute 0 s), ${n} in flight`,
            transport,
            exp: transport,
            key: 'createRate',
            floor: { exp: transport, key: 'greetRate' },
            kind: 'rate',
            extra: [
                ['createP50', 'p50 {} ms'],
                ['createP99', 'p99 {} ms'],
                ['createCpuUs', '{} µs CPU/req'],
            ],
            goal: { text: `≥ ${goals[1] * 100} % of floor`, met: v => (Number.isFinite(fraction(v)) ? fraction(v) >= goals[1] : undefined) },
        },
        {
            figure: `tasks/get rate, ${n} in flight, ${live} live tasks`,
            transport,
            exp: transport,
            key: 'getRate',
            floor: { exp: transport, key: 'greetRate' },
            kind: 'rate',
            extra: [
                ['getP50', 'p50 {} ms'],
                ['getP99', 'p99 {} ms'],
                ['getCpuUs', '{} µs CPU/req'],
            ],
            goal: { text: `≥ ${goals[2] * 100} % of floor`, met: v => (Number.isFinite(fraction(v)) ? fraction(v) >= goals[2] : undefined) },
        },
    ];
    const k = (count: number) => (count >= 1000 ? `${count / 1000}k` : String(count));
    const points = settings.memoryPoints;
    return [
        {
            figure: 'greet round trip, sequential',
            transport: 'http',
            exp: 'http',
            key: 'seqP50',
            kind: 'latency',
            extra: [['seqP99', 'p99 {}']],
            goal: { text: 'p50 ≤ 1.5× floor', met: v => (Number.isFinite(v.ours / v.floor) ? v.ours / v.floor <= 1.5 : undefined) },
        },
        ...throughput('http', [0.7, 0.5, 0.7]),
        { figure: 'greet round trip, sequential', transport: 'stdio', exp: 'stdio', key: 'seqP50', kind: 'latency', extra: [['seqP99', 'p99 {}']] },
        ...throughput('stdio', [0.7, 0.5, 0.7]),
        {
            figure: 'task completion → tasks/result returns',
            transport: 'http',
            exp: 'result',
            key: 'p99',
            kind: 'custom',
            cell: m => `p50 ${fmt(m('p50'))} ms, p99 ${fmt(m('p99'))} ms`,
            goal: { text: 'p99 ≤ 5 ms', met: v => atMost(5)(v.ours) },
        },
        {
            figure: 'task completion → pending tasks/result resolves, server side only (in-process, idle server)',
            transport: '–',
            exp: 'heap',
            key: 'wakeP99',
            kind: 'custom',
            cell: m => `p50 ${fmt(m('wakeP50'))} ms, p99 ${fmt(m('wakeP99'))} ms`,
        },
        {
            figure: `${k(settings.progressTasks)} live tasks with progress every second: tasks/get`,
            transport: 'http',
            exp: 'progress',
            key: 'getP50',
            kind: 'custom',
            cell: m => `p50 ${fmt(m('getP50'))} ms, p99 ${fmt(m('getP99'))} ms`,
            goal: { text: 'p50 ≤ 5 ms', met: v => atMost(5)(v.ours) },
        },
        {
            figure: `${k(settings.progressTasks)} live tasks with progress every second: server`,
            transport: 'http',
            exp: 'progress',
            key: 'cpu',
            kind: 'custom',
            cell: m => `${fmt(m('cpu'))} % CPU, ${fmt(m('delivered'))} progress/s delivered of ${fmt(m('expected'))}`,
            goal: {
                text: 'keeps up (≥ 95 % delivered, CPU < 100 %)',
                met: v => {
                    const delivered = v.metric('ours', 'delivered');
                    const expected = v.metric('ours', 'expected');
                    return Number.isFinite(delivered) ? delivered >= 0.95 * expected && v.ours < 100 : undefined;
                },
            },
        },
        {
            figure: `memory per live task (RSS slope from ${k(points[0]!)} working tasks up to the count reached, at most ${k(points[points.length - 1]!)})`,
            transport: 'http',
            exp: 'memory',
            key: 'perTask',
            kind: 'custom',
            rawUnit: 'KiB',
            cell: m => `${fmt(m('perTask') / 1024)} KiB (${fmt(m('tasksFirst') / 1000)}k → ${fmt(m('tasksLast') / 1000)}k tasks)`,
            goal: { text: '≤ 4 KiB', met: v => atMost(4096)(v.ours) },
        },
        {
            figure: `memory per live task: live heap after full GC, in-process (${k(settings.heapPoints[0])} → ${k(settings.heapPoints[1])} tasks)`,
            transport: '–',
            exp: 'heap',
            key: 'heapPerTask',
            kind: 'custom',
            rawUnit: 'KiB',
            cell: m => `${fmt(m('heapPerTask') / 1024)} KiB heap (RSS ${fmt(m('rssPerTask') / 1024)} KiB)`,
        },
        {
            figure: `tasks/list first page, ${k(points[0]!)} tasks of other clients present`,
            transport: 'http',
            exp: 'memory',
            key: 'listFirstP50',
            kind: 'latency',
            extra: [['listFirstP99', 'p99 {}']],
            goal: { text: 'p50 ≤ 5 ms', met: v => atMost(5)(v.ours) },
        },
        {
            figure: 'tasks/list first page, other clients’ tasks present (count as reached in the memory row; server busy ticking them)',
            transport: 'http',
            exp: 'memory',
            key: 'listP50',
            kind: 'latency',
            extra: [['listP99', 'p99 {}']],
        },
        {
            figure: `tasks/list first page, ${k(settings.heapPoints[1])} tasks of other clients present, in-process`,
            transport: '–',
            exp: 'heap',
            key: 'listP50',
            kind: 'latency',
            extra: [['listP99', 'p99 {}']],
            goal: { text: 'p50 ≤ 5 ms', met: v => atMost(5)(v.ours) },
        },
        {
            figure: 'tasks/cancel → abort observed in the tool',
            transport: 'http',
            exp: 'cancel',
            key: 'p99',
            kind: 'custom',
            cell: m => `p50 ${fmt(m('p50'))} ms, p99 ${fmt(m('p99'))} ms (cancel round trip p50 ${fmt(m('rttP50'))} ms)`,
            goal: { text: 'p99 ≤ 5 ms', met: v => atMost(5)(v.ours) },
        },
        { figure: 'cold start → listening ({"url"} printed)', transport: 'http', exp: 'coldstart', key: 'httpP50', kind: 'latency', extra: [['httpMax', 'max {}']], goal: { text: '≤ 300 ms', met: v => atMost(300)(v.ours) } },
        {
            figure: 'cold start → listening, minified bundle (as the VSIX ships it)',
            transport: 'http',
            exp: 'coldstart',
            key: 'minifiedP50',
            kind: 'latency',
            extra: [['minifiedMax', 'max {}']],
            floor: { exp: 'coldstart', key: 'httpP50' },
            goal: { text: '≤ 300 ms', met: v => atMost(300)(v.ours) },
        },
        { figure: 'cold start → initialize answered', transport: 'stdio', exp: 'coldstart', key: 'stdioP50', kind: 'latency', extra: [['stdioMax', 'max {}']] },
        {
            figure: 'extension activation (time in activate())',
            transport: '–',
            exp: 'extension',
            key: 'activateP50',
            kind: 'custom',
            cell: m => `${fmt(m('activateP50'))} ms (max ${fmt(m('activateMax'))}; logged "activated in ${fmt(m('loggedP50'))} ms"; require() of dist/extension.js ${fmt(m('loadP50'))} ms)`,
            goal: { text: '≤ 50 ms', met: v => atMost(50)(v.ours) },
        },
    ];
}

interface Args {
    quick: boolean;
    only?: Set<string>;
    client: Settings['client'];
    rounds?: number;
    write: boolean;
    ours?: string;
    vs?: string;
}

function parseArgs(argv: string[]): Args {
    const value = (flag: string) => {
        const at = argv.indexOf(flag);
        return at >= 0 ? argv[at + 1] : undefined;
    };
    const client = value('--client') ?? 'node-http';
    if (client !== 'node-http' && client !== 'fetch') {
        throw new Error('--client must be node-http or fetch');
    }
    const only = value('--only');
    const rounds = value('--rounds');
    const ours = value('--ours');
    const vs = value('--vs');
    return {
        quick: argv.includes('--quick'),
        only: only ? new Set(only.split(',')) : undefined,
        client,
        rounds: rounds ? Number(rounds) : undefined,
        // A run against other builds is an experiment, not the record.
        write: !argv.includes('--no-write') && !ours && !vs,
        ours,
        vs,
    };
}

function settingsFor(quick: boolean, client: Settings['client']): Settings {
    return quick
        ? {
              quick,
              warmupMs: 200,
              windowMs: 500,
              concurrency: 32,
              liveTasksForGet: 200,
              progressTasks: 1000,
              progressWindowMs: 1000,
              memoryPoints: [1000, 4000],
              memoryBudgetMs: 10_000,
              heapPoints: [1000, 4000],
              resultSamples: { ours: 24, baseline: 16 },
              cancelSamples: 30,
              coldStarts: 2,
              activations: 3,
              settleMs: 1100,
              clientRounds: 1,
              client,
          }
        : {
              quick,
              warmupMs: 500,
              windowMs: 1500,
              concurrency: 32,
              liveTasksForGet: 200,
              progressTasks: 10_000,
              progressWindowMs: 2500,
              memoryPoints: [10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000, 90_000, 100_000],
              memoryBudgetMs: 25_000,
              heapPoints: [10_000, 100_000],
              resultSamples: { ours: 100, baseline: 32 },
              cancelSamples: 100,
              coldStarts: 8,
              activations: 8,
              settleMs: 1500,
              clientRounds: 2,
              client,
          };
}

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
tasks support and against bare floors, and rewrites the generated block below. It is not part of \`npm test\`.
\`npm run bench -- --quick\` runs the same figures smaller (under a minute); \`--only http,stdio,...\` picks experiments;
\`--client fetch\` swaps the HTTP client; \`--no-write\` leaves this file alone; \`--ours A.js --vs B.js\` compares two builds of
the server (before/after a change) in the ours and stock columns without writing this file.`;

async function main(): Promise<void> {
    const args = parseArgs(process.argv.slice(2));
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
    const defaultRounds = args.rounds ?? (args.quick ? 1 : 2);
    try {
        let costs: Metrics | undefined;
        if (!args.only || args.only.has('client')) {
            log('client: node:http keep-alive Agent vs fetch (undici), on the HTTP floor');
            costs = await clientCost(ctx);
            log(`  node:http ${fmt(costs.nodeRate!)}/s, ${fmt(costs.nodeCpuUs!)} µs client CPU per request; fetch ${fmt(costs.fetchRate!)}/s, ${fmt(costs.fetchCpuUs!)} µs`);
        }
        for (const experiment of EXPERIMENTS) {
            if (args.only && !args.only.has(experiment.id)) {
                continue;
            }
            const rounds = experiment.rounds ?? defaultRounds;
            const byKind = new Map<Kind, Metrics[]>();
            results.set(experiment.id, byKind);
            log(`${experiment.title} [${experiment.id}], ${rounds} round(s): ${experiment.kinds.join('/')}`);
            for (let round = 0; round < rounds; round++) {
                for (const kind of experiment.kinds) {
                    const t0 = performance.now();
                    try {
                        const metrics = await withTimeout(experiment.run(ctx, kind), experiment.timeoutMs, `${experiment.id} ${kind}`);
                        byKind.set(kind, [...(byKind.get(kind) ?? []), metrics]);
                        const summary = Object.entries(metrics)
                            .map(([key, value]) => `${key}=${fmt(value)}`)
                            .join(' ');
                        log(`  ${round + 1}. ${kind.padEnd(8)} ${summary}  (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
                    } catch (err) {
                        const message = `${experiment.id} ${kind} round ${round + 1}: ${err instanceof Error ? err.message : String(err)}`;
                        failures.push(message);
                        log(`  ${round + 1}. ${kind.padEnd(8)} FAILED: ${message}`);
                        // A timed-out experiment may still own a server: stop it before the next one.
                        killAll();
                    }
                }
            }
        }
        const allRows = rows(settings).filter(row => results.has(row.exp));
        const lines = tableLines(results, allRows);
        const seconds = (performance.now() - started) / 1000;
        log('');
        log(consoleTable(lines));
        log(`\n${seconds.toFixed(0)} s; load average now ${loadavg().map(v => v.toFixed(2)).join(' ')}`);
        for (const failure of failures) {
            log(`FAILED: ${failure}`);
        }
        if (args.write && !args.only) {
            const generated = [
                `## Latest run (${args.quick ? '`--quick`' : 'default'}), ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
                '',
                `Command: \`npm run bench${args.quick ? ' -- --quick' : ''}\` (took ${seconds.toFixed(0)} s). Machine:`,
                '',
                machineText(machine, loadavg().map(v => Math.round(v * 100) / 100)),
                ...(stale ? [`- **Warning:** ${stale}`] : []),
                '',
                `Medians of ${defaultRounds} alternating round(s) (ours, stock, floor${defaultRounds > 1 ? ', then again' : ''}); the progress, memory and heap experiments and the extension probe run once. Ratios are ours ÷ stock and ours ÷ floor of the same run.`,
                '',
                markdownTable(lines),
                '',
                costs
                    ? `HTTP client: node:http with a keep-alive Agent did ${fmt(costs.nodeRate!)} req/s against the floor at ${settings.concurrency} in flight using ${fmt(costs.nodeCpuUs!)} µs of client CPU per request; global fetch (undici) did ${fmt(costs.fetchRate!)} req/s at ${fmt(costs.fetchCpuUs!)} µs. The figures use ${settings.client === 'fetch' ? 'fetch' : 'node:http'}.`
                    : '',
                failures.length ? `\nFailures:\n${failures.map(f => `- ${f}`).join('\n')}` : '',
                '',
                '<details><summary>Every run (main metric of each row, in run order)</summary>',
                '',
                rawRuns(results, allRows),
                '',
                '</details>',
            ].join('\n');
            writeReport(join(ROOT, 'docs/BENCHMARKS.md'), generated, PREAMBLE);
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
