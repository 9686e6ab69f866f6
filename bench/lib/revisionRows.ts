// The "2026-07-28 vs 2025-11-25" table: each figure as the 2026-07-28 client (kind v2) and the
// 2025-11-25 client (kind ours) of the same run saw it, their ratio, and the issue's target
// (issue 15: within 10 % of the 2025-11-25 figure). The target is held to what a request costs
// the server (CPU per request, or the latency of one request alone); rates are shown beside it,
// as the shared machine's noise moves them more.
import { metricName, type Settings } from './experiments.js';
import { cellText, medianRoundRatio, ratio, type Headers, type Results, type Row } from './report.js';
import { PHASES } from './rows.js';
import { fmt } from './stats.js';

const TOLERANCE = 1.1;

export interface RevisionRow extends Row {
    /** The ratios shown (label, metric, and the 2025-11-25 metric when it is another one), each 2026-07-28 ÷ 2025-11-25. */
    ratios: [string, string, string?][];
    /** The metric the target holds: its 2026-07-28 value at most 1.1× the 2025-11-25 one. */
    judged: string;
    /** The 2025-11-25 metric it is held to, when not the same one. */
    judgedV1?: string;
}

function phaseRows(settings: Settings, transport: 'http' | 'stdio'): RevisionRow[] {
    const key = (name: string) => metricName(transport === 'stdio' ? 'stdio' : '', name);
    const figures: Record<string, string> = {
        greet: `greet, ${settings.concurrency} in flight`,
        create: `task creation (slow_compute 0 s), ${settings.concurrency} in flight`,
        get: `tasks/get of a completed task (2026-07-28: result inline; 2025-11-25: tasks/get, and tasks/result for the result), ${settings.concurrency} in flight`,
    };
    return [
        {
            figure: 'greet round trip, sequential',
            transport,
            exp: 'revision',
            key: key('seqP50'),
            kind: 'latency',
            extra: [[key('seqP99'), 'p99 {}']],
            ratios: [['p50', key('seqP50')]],
            judged: key('seqP50'),
        },
        ...PHASES.map(
            (phase): RevisionRow => (phase.prefix === 'get' ? getRow(key, figures.get!, transport) : {
                figure: figures[phase.prefix]!,
                transport,
                exp: 'revision',
                key: key(`${phase.prefix}Rate`),
                kind: 'custom',
                cell: m => `${fmt(m(key(`${phase.prefix}Rate`)))}/s (p50 ${fmt(m(key(`${phase.prefix}P50`)))} ms, ${fmt(m(key(`${phase.prefix}CpuUs`)))} µs CPU/req)`,
                ratios: [
                    ['CPU/req', key(`${phase.prefix}CpuUs`)],
                    ['rate', key(`${phase.prefix}Rate`)],
                ],
                judged: key(`${phase.prefix}CpuUs`),
            }),
        ),
    ];
}

/**
 * tasks/get of a completed task. Under 2026-07-28 it carries the result; a 2025-11-25 client gets
 * that from tasks/result, so that is the figure the target holds it to (the same payload, so what
 * is left is what statelessness costs). The ratio to the bare 2025-11-25 tasks/get shows beside it.
 */
function getRow(key: (name: string) => string, figure: string, transport: 'http' | 'stdio'): RevisionRow {
    return {
        figure,
        transport,
        exp: 'revision',
        key: key('getRate'),
        kind: 'custom',
        cell: m => {
            const get = `${fmt(m(key('getRate')))}/s (p50 ${fmt(m(key('getP50')))} ms, ${fmt(m(key('getCpuUs')))} µs CPU/req)`;
            const result = m(key('resultRate'));
            return Number.isFinite(result) ? `${get}; tasks/result ${fmt(result)}/s (p50 ${fmt(m(key('resultP50')))} ms, ${fmt(m(key('resultCpuUs')))} µs CPU/req)` : get;
        },
        ratios: [
            ['CPU/req vs tasks/result', key('getCpuUs'), key('resultCpuUs')],
            ['CPU/req vs tasks/get', key('getCpuUs')],
            ['rate vs tasks/result', key('getRate'), key('resultRate')],
        ],
        judged: key('getCpuUs'),
        judgedV1: key('resultCpuUs'),
    };
}

export function revisionRows(settings: Settings): RevisionRow[] {
    return [
        ...phaseRows(settings, 'http'),
        ...phaseRows(settings, 'stdio'),
        {
            figure: 'tasks/cancel round trip (and → abort observed in the tool)',
            transport: 'http',
            exp: 'revision',
            key: 'cancelRttP50',
            kind: 'custom',
            cell: m => `${fmt(m('cancelRttP50'))} ms (abort observed p50 ${fmt(m('cancelP50'))} ms, p99 ${fmt(m('cancelP99'))} ms)`,
            ratios: [
                ['round trip', 'cancelRttP50'],
                ['abort p99', 'cancelP99'],
            ],
            judged: 'cancelRttP50',
        },
    ];
}

export interface RevisionLine {
    figure: string;
    transport: string;
    v2: string;
    v1: string;
    ratio: string;
    target: string;
}

export const REVISION_HEADERS: Headers<RevisionLine> = [
    ['figure', 'Figure'],
    ['transport', 'Transport'],
    ['v2', '2026-07-28'],
    ['v1', '2025-11-25'],
    ['ratio', '2026-07-28 ÷ 2025-11-25 (median of the rounds’ ratios)'],
    ['target', 'Target: ≤ 1.1× (judged figure)'],
];

/** 2026-07-28 ÷ 2025-11-25 of one figure, both clients of a round measured side by side (revisionExperiment.ts). */
export function pairedRatio(results: Results, exp: string, key: string, v1Key = key): number {
    return medianRoundRatio(results, exp, ['v2', 'ours'], key, v1Key);
}

/** Whether a row meets the target: undefined when either side is missing. */
export function revisionMet(results: Results, row: RevisionRow): boolean | undefined {
    const r = pairedRatio(results, row.exp, row.judged, row.judgedV1);
    return Number.isFinite(r) ? r <= TOLERANCE : undefined;
}

export function revisionLines(results: Results, rows: RevisionRow[]): RevisionLine[] {
    return rows.map(row => {
        const met = revisionMet(results, row);
        const judgedLabel = row.ratios.find(([, key]) => key === row.judged)?.[0] ?? row.judged;
        return {
            figure: row.figure,
            transport: row.transport,
            v2: cellText(results, row, 'v2'),
            v1: cellText(results, row, 'ours'),
            ratio: row.ratios.map(([label, key, v1Key]) => `${label} ${ratio(pairedRatio(results, row.exp, key, v1Key), 1)}`).join(', '),
            target: `${met === undefined ? '–' : met ? 'pass' : 'FAIL'} (${judgedLabel})`,
        };
    });
}
