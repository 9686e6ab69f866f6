// The "Redis store vs in-memory store" table: the rows of the Redis experiment, each cell as the
// memory rows of the main table read, and the overhead as ratios redis ÷ memory.
import type { Settings } from './experiments.js';
import { cellText, medianOf, ratio, type Headers, type Results, type Row } from './report.js';
import { PHASES, phaseRow } from './rows.js';
import { fmt } from './stats.js';

export interface RedisRow extends Row {
    /** The ratios in the overhead column: label and metric, each redis ÷ memory. */
    ratios: [string, string][];
}

const pair = (prefix: string): [string, string][] => [
    ['p50', `${prefix}P50`],
    ['p99', `${prefix}P99`],
];

const percentiles = (prefix: string, m: (key: string) => number) => `p50 ${fmt(m(`${prefix}P50`))} ms, p99 ${fmt(m(`${prefix}P99`))} ms`;

export function redisRows(settings: Settings): RedisRow[] {
    const row = (fields: Omit<RedisRow, 'exp' | 'transport'>): RedisRow => ({ exp: 'redis', transport: 'http', ...fields });
    const count = settings.redis.listTasks;
    const tasks = count >= 1000 ? `${count / 1000}k` : String(count);
    return [
        row({ figure: 'greet round trip, sequential', key: 'seqP50', kind: 'latency', extra: [['seqP99', 'p99 {}']], ratios: pair('seq') }),
        ...PHASES.map(phase => ({
            ...phaseRow(settings, phase, 'redis', 'http'),
            ratios: [
                ['rate', `${phase.prefix}Rate`],
                ['CPU/req', `${phase.prefix}CpuUs`],
            ] as [string, string][],
        })),
        row({ figure: 'task completion → tasks/result returns', key: 'resultP99', kind: 'custom', cell: m => percentiles('result', m), ratios: pair('result') }),
        row({
            figure: 'tasks/cancel → abort observed in the tool',
            key: 'cancelP99',
            kind: 'custom',
            cell: m => `${percentiles('cancel', m)} (cancel round trip p50 ${fmt(m('cancelRttP50'))} ms)`,
            // p50 sits near 0 (a millisecond log stamp), so only p99 and the round trip make a ratio.
            ratios: [
                ['p99', 'cancelP99'],
                ['round trip', 'cancelRttP50'],
            ],
        }),
        row({ figure: `tasks/list first page, ${tasks} tasks of other clients present`, key: 'listFirstP50', kind: 'latency', extra: [['listFirstP99', 'p99 {}']], ratios: pair('listFirst') }),
        row({
            figure: 'task completion → tasks/result awaited in another session of the client (Redis: on a second replica; memory: same process)',
            key: 'elsewhereP99',
            kind: 'custom',
            cell: m => percentiles('elsewhere', m),
            ratios: pair('elsewhere'),
        }),
    ];
}

export interface RedisLine {
    figure: string;
    redis: string;
    memory: string;
    overhead: string;
}

export const REDIS_HEADERS: Headers<RedisLine> = [
    ['figure', 'Figure (HTTP)'],
    ['redis', 'Redis store'],
    ['memory', 'in-memory store'],
    ['overhead', 'Redis ÷ memory'],
];

export function redisLines(results: Results, rows: RedisRow[]): RedisLine[] {
    return rows.map(row => ({
        figure: row.figure,
        redis: cellText(results, row, 'redis'),
        memory: cellText(results, row, 'ours'),
        overhead: row.ratios.map(([label, key]) => `${label} ${ratio(medianOf(results, 'redis', 'redis', key), medianOf(results, 'redis', 'ours', key))}`).join(', '),
    }));
}
