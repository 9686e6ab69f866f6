// Turns the medians into the figures table (console and Markdown) and writes docs/BENCHMARKS.md,
// replacing only the generated part so hand-written analysis around it survives a rerun.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Metrics } from './experiments.js';
import { fmt, median } from './stats.js';
import type { Kind, Machine } from './targets.js';

export type Results = Map<string, Map<Kind, Metrics[]>>;

export interface Row {
    figure: string;
    transport: string;
    exp: string;
    /** The metric compared across kinds. */
    key: string;
    /** Where the floor's value comes from, when not the same key of the same experiment. */
    floor?: { exp: string; key: string };
    kind: 'latency' | 'rate' | 'bytes' | 'custom';
    /** Extra metrics shown in the cell: [key, template], `{}` standing for the value. */
    extra?: [string, string][];
    cell?: (m: (key: string) => number) => string;
    /** Unit of the main metric in the every-run listing, when not the metric's own (bytes as KiB). */
    rawUnit?: 'KiB';
    goal?: { text: string; met: (v: Values) => boolean | undefined };
}

export interface Values {
    ours: number;
    baseline: number;
    floor: number;
    metric(kind: Kind, key: string, exp?: string): number;
}

export function medianOf(results: Results, exp: string, kind: Kind, key: string): number {
    const runs = results.get(exp)?.get(kind);
    return runs ? median(runs.map(run => run[key] ?? NaN)) : NaN;
}

function values(results: Results, row: Row): Values {
    const floorSource = row.floor ?? { exp: row.exp, key: row.key };
    return {
        ours: medianOf(results, row.exp, 'ours', row.key),
        baseline: medianOf(results, row.exp, 'baseline', row.key),
        floor: medianOf(results, floorSource.exp, 'floor', floorSource.key),
        metric: (kind, key, exp) => medianOf(results, exp ?? row.exp, kind, key),
    };
}

/**
 * `a` ÷ `b` of one figure of kinds that ran side by side (runTogether, a round each): the median
 * over rounds of each round's own ratio. Both kinds of a round saw the same minutes of the shared
 * machine, so a round's ratio is the fair one, and the median drops a round one disturbance skewed.
 */
export function medianRoundRatio(results: Results, exp: string, [a, b]: [Kind, Kind], key: string, bKey = key): number {
    const as = results.get(exp)?.get(a) ?? [];
    const bs = results.get(exp)?.get(b) ?? [];
    return median(as.map((run, i) => (run[key] ?? NaN) / (bs[i]?.[bKey] ?? NaN)).filter(r => Number.isFinite(r) && r > 0));
}

export function cellText(results: Results, row: Row, kind: Kind): string {
    const m = (key: string) => medianOf(results, row.exp, kind, key);
    const main = kind === 'floor' && row.floor ? medianOf(results, row.floor.exp, 'floor', row.floor.key) : m(row.key);
    if (!Number.isFinite(main)) {
        return '–';
    }
    if (row.cell) {
        return row.cell(m);
    }
    const extras = kind === 'floor' && row.floor ? [] : (row.extra ?? []).filter(([key]) => Number.isFinite(m(key))).map(([key, template]) => template.replace('{}', fmt(m(key))));
    const suffix = extras.length ? ` (${extras.join(', ')})` : '';
    switch (row.kind) {
        case 'latency':
            return `${fmt(main)} ms${suffix}`;
        case 'rate':
            return `${fmt(main)}/s${suffix}`;
        case 'bytes':
            return `${fmt(main / 1024)} KiB${suffix}`;
        default:
            return `${fmt(main)}${suffix}`;
    }
}

export function ratio(a: number, b: number): string {
    return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${(a / b).toFixed(2)}×` : '–';
}

export interface TableLine {
    figure: string;
    transport: string;
    ours: string;
    baseline: string;
    floor: string;
    vsBaseline: string;
    vsFloor: string;
    goal: string;
    met: string;
}

export function tableLines(results: Results, rows: Row[]): TableLine[] {
    return rows.map(row => {
        const v = values(results, row);
        const met = row.goal?.met(v);
        return {
            figure: row.figure,
            transport: row.transport,
            ours: cellText(results, row, 'ours'),
            baseline: cellText(results, row, 'baseline'),
            floor: cellText(results, row, 'floor'),
            vsBaseline: row.kind === 'custom' ? '–' : ratio(v.ours, v.baseline),
            vsFloor: row.kind === 'custom' ? '–' : ratio(v.ours, v.floor),
            goal: row.goal?.text ?? '',
            met: met === undefined ? (row.goal ? '?' : '') : met ? 'yes' : '**no**',
        };
    });
}

/** A table's columns: the line's key and the column title. */
export type Headers<T> = [keyof T & string, string][];

/** The main table's columns. */
export const MAIN_HEADERS: Headers<TableLine> = [
    ['figure', 'Figure'],
    ['transport', 'via'],
    ['ours', 'ours'],
    ['baseline', 'SDK 1.32.2 stock'],
    ['floor', 'floor'],
    ['vsBaseline', 'ours/stock'],
    ['vsFloor', 'ours/floor'],
    ['goal', 'goal'],
    ['met', 'met'],
];

export function markdownTable<T extends object>(lines: T[], headers: Headers<T>): string {
    const text = (line: T, key: keyof T) => String(line[key]);
    const head = `| ${headers.map(([, title]) => title).join(' | ')} |`;
    const rule = `|${headers.map(() => '---').join('|')}|`;
    return [head, rule, ...lines.map(line => `| ${headers.map(([key]) => text(line, key).replace(/\|/g, '\\|')).join(' | ')} |`)].join('\n');
}

export function consoleTable<T extends object>(lines: T[], headers: Headers<T>): string {
    const text = (line: T, key: keyof T) => String(line[key]).replace(/\*\*/g, '');
    const widths = headers.map(([key, title]) => Math.max(title.length, ...lines.map(line => text(line, key).length)));
    const render = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
    return [render(headers.map(([, title]) => title)), render(widths.map(w => '-'.repeat(w))), ...lines.map(line => render(headers.map(([key]) => text(line, key))))].join('\n');
}

/** The every-run listing's columns for the main table. */
const RUN_COLUMNS: [Kind, string][] = [
    ['ours', 'ours runs'],
    ['baseline', 'stock runs'],
    ['floor', 'floor runs'],
];

/** Every run's value of the row's main metric, in run order, to show the spread. */
export function rawRuns(results: Results, rows: Row[], columns: [Kind, string][] = RUN_COLUMNS): string {
    const out: string[] = [`| Figure | ${columns.map(([, title]) => title).join(' | ')} |`, `|---|${columns.map(() => '---').join('|')}|`];
    for (const row of rows) {
        const runs = (kind: Kind) => {
            const source = kind === 'floor' && row.floor ? row.floor : { exp: row.exp, key: row.key };
            const list = results.get(source.exp)?.get(kind) ?? [];
            const scale = row.kind === 'bytes' || row.rawUnit === 'KiB' ? 1 / 1024 : 1;
            return list.map(run => fmt((run[source.key] ?? NaN) * scale)).join(', ') || '–';
        };
        out.push(`| ${row.figure} (${row.transport}) | ${columns.map(([kind]) => runs(kind)).join(' | ')} |`);
    }
    return out.join('\n');
}

export function machineText(machine: Machine, loadAtEnd: number[]): string {
    return [
        `- CPU: ${machine.cpuModel}, ${machine.cores} cores`,
        `- Memory: ${machine.memoryGiB} GiB`,
        `- Node.js ${machine.node} on ${machine.platform}`,
        `- Load average (1/5/15 min) at start: ${machine.loadAtStart.join(' / ')}; at end: ${loadAtEnd.join(' / ')}`,
    ].join('\n');
}

const BEGIN = '<!-- bench:begin (generated by `npm run bench`; edit outside these markers) -->';
const END = '<!-- bench:end -->';

/** Replaces the generated block of `path`, or creates the file with `preamble` around it. */
export function writeReport(path: string, generated: string, preamble: string): void {
    const block = `${BEGIN}\n${generated.trim()}\n${END}`;
    if (existsSync(path)) {
        const text = readFileSync(path, 'utf8');
        const start = text.indexOf(BEGIN.slice(0, 20));
        const end = text.indexOf(END);
        if (start >= 0 && end > start) {
            writeFileSync(path, text.slice(0, start) + block + text.slice(end + END.length));
            return;
        }
    }
    writeFileSync(path, `${preamble.trim()}\n\n${block}\n`);
}
