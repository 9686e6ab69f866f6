// The command line of `npm run bench` and the sizes of a default or --quick run.
import type { Settings } from './experiments.js';

export interface Args {
    help: boolean;
    quick: boolean;
    only?: Set<string>;
    client: Settings['client'];
    rounds?: number;
    /** Rewrite docs/BENCHMARKS.md (tracked); without it results go to bench/results/ only. */
    write: boolean;
    ours?: string;
    vs?: string;
}

/** Where a run's report goes when it does not rewrite docs/BENCHMARKS.md (git-ignored). */
export const RESULTS_DIR = 'bench/results';

export const USAGE = `Usage: npm run bench [-- options]

Measures dist/server.js on loopback against a stock SDK server and bare floors (build first:
npm run build). Prints the tables; saves the report under ${RESULTS_DIR}/ (git-ignored).

Options:
  --help, -h            print this help and exit; runs nothing
  --quick               smaller sizes and shorter windows (under 1 min instead of under 5)
  --only ID,ID          run only these experiments: client, http, stdio, result, cancel,
                        progress, memory, heap, commands, stops, burst, resume, coldstart,
                        extension, revision, redis, durable, gateway, gatewaymem,
                        gatewayproxies (installs mcp-proxy and supergateway from npm
                        into a cache folder the first time)
  --client node-http|fetch
                        the HTTP client: node:http keep-alive agent (default) or fetch (undici)
  --rounds N            alternation rounds per experiment (default 2; 1 with --quick)
  --ours FILE.js        measure this server build as "ours" instead of dist/server.js
  --vs FILE.js          measure this server build in the "stock" column (before/after a change)
  --write               also rewrite the results block of docs/BENCHMARKS.md (tracked); only
                        for a full run (not with --only, --ours or --vs)
`;

const VALUE_FLAGS = new Set(['--only', '--client', '--rounds', '--ours', '--vs']);
const SWITCHES = new Set(['--help', '-h', '--quick', '--write']);

/** Reads the command line; bad input throws an Error whose message says what is wrong. */
export function parseArgs(argv: string[]): Args {
    const values = new Map<string, string>();
    const switches = new Set<string>();
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i]!;
        if (SWITCHES.has(arg)) {
            switches.add(arg);
        } else if (VALUE_FLAGS.has(arg)) {
            const value = argv[++i];
            if (value === undefined || value.startsWith('--')) {
                throw new Error(`${arg} needs a value`);
            }
            values.set(arg, value);
        } else {
            throw new Error(`unknown argument ${arg}`);
        }
    }
    const help = switches.has('--help') || switches.has('-h');
    const client = values.get('--client') ?? 'node-http';
    if (client !== 'node-http' && client !== 'fetch') {
        throw new Error('--client must be node-http or fetch');
    }
    const only = values.get('--only');
    const roundsText = values.get('--rounds');
    const rounds = roundsText === undefined ? undefined : Number(roundsText);
    if (rounds !== undefined && !(Number.isInteger(rounds) && rounds >= 1)) {
        throw new Error(`--rounds must be a whole number of at least 1, not ${roundsText}`);
    }
    const ours = values.get('--ours');
    const vs = values.get('--vs');
    const write = switches.has('--write');
    // The tracked file records full runs of this build only.
    if (write && !help && (only || ours || vs)) {
        throw new Error('--write records a full run of dist/server.js: leave out --only, --ours and --vs');
    }
    return { help, quick: switches.has('--quick'), only: only ? new Set(only.split(',')) : undefined, client, rounds, write, ours, vs };
}

/** Sizes chosen so that a default run takes under 5 minutes and --quick under 1 on the 2-core VM, Redis included. */
export function settingsFor(quick: boolean, client: Settings['client']): Settings {
    return quick
        ? {
              quick,
              warmupMs: 150,
              windowMs: 350,
              slices: 2,
              concurrency: 32,
              liveTasksForGet: 200,
              progressTasks: 500,
              progressWindowMs: 1000,
              memoryPoints: [1000, 2000],
              memoryBudgetMs: 10_000,
              heapPoints: [1000, 4000],
              gatewayWarmupMs: 1000,
              gatewayTaskPoints: [500, 1000, 1500],
              resultSamples: { ours: 24, baseline: 16 },
              cancelSamples: 30,
              coldStarts: 1,
              activations: 3,
              settleMs: 1100,
              clientRounds: 1,
              redis: { warmupMs: 150, windowMs: 350, resultSamples: 12, cancelSamples: 20, listTasks: 200 },
              durable: { warmupMs: 150, windowMs: 350, resultSamples: 12 },
              client,
          }
        : {
              quick,
              warmupMs: 500,
              windowMs: 1500,
              slices: 6,
              concurrency: 32,
              liveTasksForGet: 200,
              progressTasks: 10_000,
              progressWindowMs: 2500,
              memoryPoints: [10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000, 90_000, 100_000],
              memoryBudgetMs: 25_000,
              heapPoints: [10_000, 100_000],
              gatewayWarmupMs: 5000,
              gatewayTaskPoints: [2000, 4000, 6000, 8000],
              resultSamples: { ours: 100, baseline: 32 },
              cancelSamples: 100,
              coldStarts: 6,
              activations: 8,
              settleMs: 1500,
              clientRounds: 2,
              redis: { warmupMs: 250, windowMs: 750, resultSamples: 24, cancelSamples: 50, listTasks: 1000 },
              durable: { warmupMs: 300, windowMs: 1200, resultSamples: 48 },
              client,
          };
}
