// The "SQLite store vs in-memory store" table: the rows of the durable experiment, each cell as the
// memory rows of the main table read, the overhead as ratios sqlite ÷ memory, and the goals the
// durable store is held to (issue 43): creation at least half the memory store's rate in the same
// run, tasks/get (served from memory in both) at least 0.8 of it.
import { metricName, type Settings } from './experiments.js';
import { cellText, medianRoundRatio, ratio, type Headers, type Results, type Row } from './report.js';
import { PHASES, phaseRow } from './rows.js';
import { fmt } from './stats.js';

/** The least sqlite ÷ memory rate each phase is held to; greet has no goal (it touches no task). */
const LEAST: Partial<Record<(typeof PHASES)[number]['prefix'], number>> = { create: 0.5, get: 0.8 };

export interface DurableRow extends Row {
    /** The ratios in the overhead column: label and metric, each sqlite ÷ memory. */
    ratios: [string, string][];
    /** The goal: the judged metric's sqlite ÷ memory at least `ratio`. */
    least?: { key: string; ratio: number };
}

function transportRows(settings: Settings, transport: 'http' | 'stdio'): DurableRow[] {
    const under = transport === 'stdio' ? 'stdio' : '';
    const key = (name: string) => metricName(under, name);
    return [
        {
            figure: 'greet round trip, sequential',
            transport,
            exp: 'durable',
            key: key('seqP50'),
            kind: 'latency',
            extra: [[key('seqP99'), 'p99 {}']],
            ratios: [
                ['p50', key('seqP50')],
                ['p99', key('seqP99')],
            ],
        },
        ...PHASES.map((phase): DurableRow => {
            const least = LEAST[phase.prefix];
            const rate = key(`${phase.prefix}Rate`);
            return {
                ...phaseRow(settings, phase, 'durable', transport, under),
                floor: undefined,
                ratios: [
                    ['rate', rate],
                    ['CPU/req', key(`${phase.prefix}CpuUs`)],
                ],
                ...(least ? { least: { key: rate, ratio: least } } : {}),
            };
        }),
    ];
}

export function durableRows(settings: Settings): DurableRow[] {
    return [
        ...transportRows(settings, 'http'),
        {
            figure: 'task completion → tasks/result returns',
            transport: 'http',
            exp: 'durable',
            key: 'resultP99',
            kind: 'custom',
            cell: m => `p50 ${fmt(m('resultP50'))} ms, p99 ${fmt(m('resultP99'))} ms`,
            ratios: [
                ['p50', 'resultP50'],
                ['p99', 'resultP99'],
            ],
        },
        ...transportRows(settings, 'stdio'),
    ];
}

export interface DurableLine {
    figure: string;
    transport: string;
    sqlite: string;
    memory: string;
    overhead: string;
    goal: string;
    met: string;
}

export const DURABLE_HEADERS: Headers<DurableLine> = [
    ['figure', 'Figure'],
    ['transport', 'via'],
    ['sqlite', 'SQLite store'],
    ['memory', 'in-memory store'],
    ['overhead', 'SQLite ÷ memory'],
    ['goal', 'goal'],
    ['met', 'met'],
];

/** sqlite ÷ memory of one metric: both ran side by side each round (durableExperiment.ts), so the median of the rounds' own ratios. */
function overhead(results: Results, key: string): number {
    return medianRoundRatio(results, 'durable', ['sqlite', 'ours'], key);
}

export function durableLines(results: Results, rows: DurableRow[]): DurableLine[] {
    return rows.map(row => {
        const judged = row.least ? overhead(results, row.least.key) : NaN;
        return {
            figure: row.figure,
            transport: row.transport,
            sqlite: cellText(results, row, 'sqlite'),
            memory: cellText(results, row, 'ours'),
            overhead: row.ratios.map(([label, key]) => `${label} ${ratio(overhead(results, key), 1)}`).join(', '),
            goal: row.least ? `rate ≥ ${row.least.ratio}× memory` : '',
            met: !row.least ? '' : !Number.isFinite(judged) ? '?' : judged >= row.least.ratio ? 'yes' : '**no**',
        };
    });
}
