// The command line of `npm run bench` and the sizes of a default or --quick run.
import type { Settings } from './experiments.js';

export interface Args {
    quick: boolean;
    only?: Set<string>;
    client: Settings['client'];
    rounds?: number;
    write: boolean;
    ours?: string;
    vs?: string;
}

export function parseArgs(argv: string[]): Args {
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

/** Sizes chosen so that a default run takes under 5 minutes and --quick under 1 on the 2-core VM, Redis included. */
export function settingsFor(quick: boolean, client: Settings['client']): Settings {
    return quick
        ? {
              quick,
              warmupMs: 150,
              windowMs: 350,
              concurrency: 32,
              liveTasksForGet: 200,
              progressTasks: 500,
              progressWindowMs: 1000,
              memoryPoints: [1000, 2000],
              memoryBudgetMs: 10_000,
              heapPoints: [1000, 4000],
              resultSamples: { ours: 24, baseline: 16 },
              cancelSamples: 30,
              coldStarts: 1,
              activations: 3,
              settleMs: 1100,
              clientRounds: 1,
              redis: { warmupMs: 150, windowMs: 350, resultSamples: 12, cancelSamples: 20, listTasks: 200 },
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
              coldStarts: 6,
              activations: 8,
              settleMs: 1500,
              clientRounds: 2,
              redis: { warmupMs: 250, windowMs: 750, resultSamples: 24, cancelSamples: 50, listTasks: 1000 },
              client,
          };
}
