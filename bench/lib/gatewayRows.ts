// The "Gateway" table (issue 29): each figure through ours wrapping server-everything (kind
// `gateway`) and, where there is one, server-everything called directly (kind `direct`), their
// ratio, and the goal each is held to.
import type { Settings } from './experiments.js';
import { cellText, medianOf, medianRoundRatio, type Headers, type Results, type Row } from './report.js';
import { fmt } from './stats.js';

export interface GatewayRow extends Row {
    /** gateway ÷ direct of this metric, shown beside the goal; none for a gateway-only figure. */
    ratioKey?: string;
    /** The goal (not Row's `goal`, which judges one kind against the floor): judged on the whole results. */
    target: { text: string; met: (results: Results) => boolean | undefined };
}

/** Goals from issue 29. */
export const GATEWAY_GOALS = { throughputRatio: 0.7, bytesPerTask: 8 * 1024 } as const;

/** gateway ÷ direct of one metric: the median over rounds of each round's own ratio (both sides ran in turns in each round). */
export function gatewayRatio(results: Results, key: string): number {
    return medianRoundRatio(results, 'gateway', ['gateway', 'direct'], key);
}

const echoCell = (m: (key: string) => number) => {
    const front = m('frontCpuUs');
    const gatewayShare = Number.isFinite(front) && front > 0 ? `: the gateway ${fmt(front)} µs, the downstream ${fmt(m('echoCpuUs') - front)} µs` : '';
    return `${fmt(m('echoRate'))}/s (p50 ${fmt(m('echoP50'))} ms, p99 ${fmt(m('echoP99'))} ms, ${fmt(m('echoCpuUs'))} µs CPU/call${gatewayShare})`;
};

export function gatewayRows(settings: Settings): GatewayRow[] {
    const points = settings.gatewayTaskPoints;
    return [
        {
            figure: `server-everything's echo, ${settings.concurrency} in flight (CPU/call: every process serving the call)`,
            transport: 'stdio',
            exp: 'gateway',
            key: 'echoRate',
            kind: 'custom',
            cell: echoCell,
            ratioKey: 'echoRate',
            target: {
                text: `≥ ${GATEWAY_GOALS.throughputRatio}× direct`,
                met: results => {
                    const r = gatewayRatio(results, 'echoRate');
                    return Number.isFinite(r) ? r >= GATEWAY_GOALS.throughputRatio : undefined;
                },
            },
        },
        {
            figure: `memory per wrapped running task (gateway RSS slope, ${points[0]} → ${points[points.length - 1]} running trigger-long-running-operation tasks)`,
            transport: 'http',
            exp: 'gatewaymem',
            key: 'perTask',
            kind: 'custom',
            rawUnit: 'KiB',
            cell: m => `${fmt(m('perTask') / 1024)} KiB (least-squares fit ${fmt(m('fit') / 1024)} KiB)`,
            target: {
                text: `≤ ${GATEWAY_GOALS.bytesPerTask / 1024} KiB`,
                met: results => {
                    const v = medianOf(results, 'gatewaymem', 'gateway', 'perTask');
                    return Number.isFinite(v) ? v <= GATEWAY_GOALS.bytesPerTask : undefined;
                },
            },
        },
    ];
}

export interface GatewayLine {
    figure: string;
    transport: string;
    gateway: string;
    direct: string;
    ratio: string;
    goal: string;
    met: string;
}

export const GATEWAY_HEADERS: Headers<GatewayLine> = [
    ['figure', 'Figure'],
    ['transport', 'via'],
    ['gateway', 'through the gateway'],
    ['direct', 'server-everything directly'],
    ['ratio', 'gateway ÷ direct (median of the rounds’ ratios)'],
    ['goal', 'goal'],
    ['met', 'met'],
];

export function gatewayLines(results: Results, rows: GatewayRow[]): GatewayLine[] {
    return rows.map(row => {
        const met = row.target.met(results);
        const r = row.ratioKey ? gatewayRatio(results, row.ratioKey) : NaN;
        return {
            figure: row.figure,
            transport: row.transport,
            gateway: cellText(results, row, 'gateway'),
            direct: cellText(results, row, 'direct'),
            ratio: Number.isFinite(r) ? `${r.toFixed(2)}×` : '–',
            goal: row.target.text,
            met: met === undefined ? '?' : met ? 'yes' : '**no**',
        };
    });
}
