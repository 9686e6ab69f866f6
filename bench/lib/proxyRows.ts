// The "Gateway against mcp-proxy and supergateway" table (issue 42): echo through each over
// Streamable HTTP, and ours ÷ each proxy, held to ours at least level with each (the figure on
// record, from manual runs, is 4.5× mcp-proxy).
import { fmt } from './stats.js';
import { cellText, medianRoundRatio, type Headers, type Results, type Row } from './report.js';
import type { Kind } from './targets.js';

export const PROXY_EXP = 'gatewayproxies';

/** Goal from issue 42: ours at least as fast as each proxy, on calls/s and on p50. */
export const PROXY_GOALS = { atLeast: 1 } as const;

/** The figure on record in docs/BENCHMARKS.md (manual runs before this row existed). */
export const ON_RECORD = '4.5× mcp-proxy';

const PROXY_KINDS = ['mcp-proxy', 'supergateway'] as const;

/**
 * ours ÷ proxy of one metric, the median over rounds of each round's own ratio; for a latency
 * the other way round (proxy ÷ ours), so above 1× always means ours is ahead.
 */
export function proxyRatio(results: Results, proxy: Kind, key: 'echoRate' | 'echoP50'): number {
    return key === 'echoRate'
        ? medianRoundRatio(results, PROXY_EXP, ['gateway', proxy], key)
        : medianRoundRatio(results, PROXY_EXP, [proxy, 'gateway'], key);
}

/** Met when ours is at least level with every proxy on calls/s and on p50; undefined without the figures. */
export function proxyGoalMet(results: Results): boolean | undefined {
    const ratios = PROXY_KINDS.flatMap(proxy => [proxyRatio(results, proxy, 'echoRate'), proxyRatio(results, proxy, 'echoP50')]);
    return ratios.every(Number.isFinite) ? ratios.every(r => r >= PROXY_GOALS.atLeast) : undefined;
}

export function proxyRow(concurrency: number): Row {
    return {
        figure: `server-everything's echo, ${concurrency} in flight over Streamable HTTP (CPU/call: the front and its server-everything)`,
        transport: 'http',
        exp: PROXY_EXP,
        key: 'echoRate',
        kind: 'custom',
        cell: m => `${fmt(m('echoRate'))}/s (p50 ${fmt(m('echoP50'))} ms, p99 ${fmt(m('echoP99'))} ms, ${fmt(m('echoCpuUs'))} µs CPU/call)`,
    };
}

export interface ProxyLine {
    figure: string;
    gateway: string;
    mcpProxy: string;
    supergateway: string;
    vsMcpProxy: string;
    vsSupergateway: string;
    goal: string;
    met: string;
}

export const PROXY_HEADERS: Headers<ProxyLine> = [
    ['figure', 'Figure'],
    ['gateway', 'ours (--http --wrap)'],
    ['mcpProxy', 'mcp-proxy 6.7.19'],
    ['supergateway', 'supergateway 4.0.0 (--stateful)'],
    ['vsMcpProxy', 'ours ÷ mcp-proxy (calls/s; p50)'],
    ['vsSupergateway', 'ours ÷ supergateway (calls/s; p50)'],
    ['goal', 'goal'],
    ['met', 'met'],
];

const ratioText = (results: Results, proxy: Kind) => {
    const rate = proxyRatio(results, proxy, 'echoRate');
    const p50 = proxyRatio(results, proxy, 'echoP50');
    return Number.isFinite(rate) && Number.isFinite(p50) ? `${rate.toFixed(2)}×; ${p50.toFixed(2)}×` : '–';
};

export function proxyLines(results: Results, concurrency: number): ProxyLine[] {
    const row = proxyRow(concurrency);
    const met = proxyGoalMet(results);
    return [
        {
            figure: row.figure,
            gateway: cellText(results, row, 'gateway'),
            mcpProxy: cellText(results, row, 'mcp-proxy'),
            supergateway: cellText(results, row, 'supergateway'),
            vsMcpProxy: ratioText(results, 'mcp-proxy'),
            vsSupergateway: ratioText(results, 'supergateway'),
            goal: `≥ ${PROXY_GOALS.atLeast}× each, calls/s and p50 (on record: ${ON_RECORD})`,
            met: met === undefined ? '?' : met ? 'yes' : '**no**',
        },
    ];
}
