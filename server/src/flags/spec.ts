// What a flag can be, and how a table of them reads a command line and the environment. The table
// itself is ./table.ts; ./render.ts writes --help and docs/CLI.md's tables from it. No runtime
// imports, so the extension can build command lines from the same names.
import { parseArgs } from 'node:util';

/** The heading a flag is listed under in --help; groups print in the order the table first names them. */
export type FlagGroup = 'Transport' | 'Tasks' | 'Commands' | 'Gateway' | 'Other';

interface FlagBase {
    /** Without the dashes: `max-ttl`. */
    readonly name: string;
    /** The property of the parsed options that holds the value. */
    readonly key: string;
    readonly group: FlagGroup;
    /** One paragraph for --help and the docs; `code spans` and [links](x.md) print bare in --help. */
    readonly help: string;
    /** More for docs/CLI.md only (links, details too long for --help). */
    readonly docs?: string;
    /** The default as the docs and --help state it, when the value alone does not say it. */
    readonly shownDefault?: string;
    readonly short?: string;
    /** false: no environment variable (--help, --version); else MCP_TASKS_<NAME>. */
    readonly env?: false;
    /** Flags sharing a name here exclude each other; given on the command line, they override the environment's as a set. */
    readonly oneOf?: string;
}

/** Present or not: `--http`. The environment says 1/true/yes/on or 0/false/no/off. */
export interface SwitchFlag extends FlagBase {
    readonly type: 'switch';
}

/** Turns off what is on by default: `--no-task-tools` makes taskTools false. */
export interface OffFlag extends FlagBase {
    readonly type: 'off';
}

export interface StringFlag extends FlagBase {
    readonly type: 'string';
    /** The value's name in the usage: `HOST`. */
    readonly arg: string;
    readonly default?: string;
    /** Validates and normalises; throws an Error naming `source`. */
    readonly parse?: (text: string, source: string) => string | undefined;
}

export interface ChoiceFlag<C extends string = string> extends FlagBase {
    readonly type: 'choice';
    readonly arg: string;
    readonly choices: readonly C[];
    readonly default?: C;
}

/** A duration in milliseconds, written 1500, 90s, 30m or 1h. */
export interface DurationFlag extends FlagBase {
    readonly type: 'duration';
    readonly arg: string;
    readonly default: number;
    readonly min?: number;
    /** "off" (and 0) are accepted and read as 0. */
    readonly off?: boolean;
}

/** A whole number. */
export interface CountFlag extends FlagBase {
    readonly type: 'count';
    readonly arg: string;
    readonly default: number;
    readonly min: number;
    readonly max?: number;
}

/** Repeatable: every occurrence adds one value; the environment variable splits on `separator`. */
export interface ListFlag extends FlagBase {
    readonly type: 'list';
    readonly arg: string;
    /** Default ",". */
    readonly separator?: string;
    /** Keep duplicates (default: drop them, and blanks). */
    readonly keepDuplicates?: boolean;
}

/**
 * A program and its arguments: `--flag -- program arg…` takes everything after `--`. The
 * environment variable holds a JSON array of strings.
 */
export interface CommandFlag extends FlagBase {
    readonly type: 'command';
}

export type Flag = SwitchFlag | OffFlag | StringFlag | ChoiceFlag | DurationFlag | CountFlag | ListFlag | CommandFlag;

/** The value one flag gives, as the table declares it. */
export type FlagValue<F extends Flag> = F extends SwitchFlag | OffFlag
    ? boolean
    : F extends ListFlag | CommandFlag
      ? string[]
      : F extends DurationFlag | CountFlag
        ? number
        : F extends ChoiceFlag<infer C>
          ? F extends { default: string }
              ? C
              : C | undefined
          : F extends { default: string }
            ? string
            : string | undefined;

/** Every flag's value under its key. */
export type FlagValues<T extends readonly Flag[]> = { [F in T[number] as F['key']]: FlagValue<F> };

/** MCP_TASKS_<NAME>: `max-ttl` → MCP_TASKS_MAX_TTL. */
export function envName(flag: Flag): string | undefined {
    return flag.env === false ? undefined : `MCP_TASKS_${flag.name.toUpperCase().replace(/-/g, '_')}`;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string, source: string): number {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
    if (!match) {
        throw new Error(`${source}: "${text}" is not a duration (e.g. 1500, 90s, 30m, 1h)`);
    }
    return Math.round(Number(match[1]) * UNITS[match[2] ?? 'ms']!);
}

/** The shortest way to write `ms`: 3600000 → 1h, 1500 → 1500ms. */
export function formatDuration(ms: number): string {
    for (const unit of ['h', 'm', 's'] as const) {
        if (ms > 0 && ms % UNITS[unit]! === 0) {
            return `${ms / UNITS[unit]!}${unit}`;
        }
    }
    return `${ms}ms`;
}

function parseCount(text: string, source: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
    if (!/^\d+$/.test(text.trim()) || Number(text) < min) {
        throw new Error(`${source}: "${text}" must be a whole number ≥ ${min}`);
    }
    if (Number(text) > max) {
        throw new Error(`${source}: must be at most ${max}`);
    }
    return Number(text);
}

function parseBoolean(text: string, source: string): boolean {
    const value = text.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(value)) {
        return true;
    }
    if (['0', 'false', 'no', 'off'].includes(value)) {
        return false;
    }
    throw new Error(`${source}: "${text}" must be 1 or 0 (true or false)`);
}

function parseCommand(text: string, source: string): string[] {
    let value: unknown;
    try {
        value = JSON.parse(text);
    } catch {
        value = undefined;
    }
    if (!Array.isArray(value) || value.length === 0 || !value.every(item => typeof item === 'string')) {
        throw new Error(`${source}: write the program and its arguments as a JSON array of strings, e.g. ["npx", "-y", "some-server"]`);
    }
    return value as string[];
}

/** One value the command line or the environment gave, as text (a switch: true). */
type Given = string | string[] | boolean;

function read(flag: Flag, given: Given | undefined, source: string): unknown {
    switch (flag.type) {
        case 'switch':
            return given === undefined ? false : typeof given === 'boolean' ? given : parseBoolean(String(given), source);
        case 'off': {
            const on = given === undefined ? false : typeof given === 'boolean' ? given : parseBoolean(String(given), source);
            return !on;
        }
        case 'list': {
            if (given === undefined) {
                return [];
            }
            const items = Array.isArray(given) ? given : String(given).split(flag.separator ?? ',');
            const trimmed = items.map(item => item.trim()).filter(Boolean);
            return flag.keepDuplicates ? trimmed : [...new Set(trimmed)];
        }
        case 'command':
            return given === undefined ? [] : Array.isArray(given) ? given : parseCommand(String(given), source);
        case 'duration': {
            if (given === undefined) {
                return flag.default;
            }
            const text = String(given);
            const ms = flag.off && text.trim() === 'off' ? 0 : parseDuration(text, source);
            if (flag.min !== undefined && ms < flag.min && !(flag.off && ms === 0)) {
                throw new Error(`${source} must be at least ${formatDuration(flag.min)}`);
            }
            return ms;
        }
        case 'count':
            return given === undefined ? flag.default : parseCount(String(given), source, flag.min, flag.max);
        case 'choice': {
            if (given === undefined) {
                return flag.default;
            }
            if (!flag.choices.includes(String(given))) {
                const choices = flag.choices.length === 2 ? flag.choices.join(' or ') : `one of ${flag.choices.join(', ')}`;
                throw new Error(`${source}: "${String(given)}" must be ${choices}`);
            }
            return String(given);
        }
        case 'string':
            return given === undefined ? flag.default : flag.parse ? flag.parse(String(given), source) : String(given);
    }
}

export interface ParsedFlags<T extends readonly Flag[]> {
    values: FlagValues<T>;
    /** The names given on the command line or in the environment (not defaulted). */
    given: Set<T[number]['name']>;
}

/** Flags people reach for that are spelled otherwise here: what to type instead. */
const INSTEAD: Readonly<Record<string, string>> = {
    redis: '--store redis://HOST:PORT',
    'redis-url': '--store redis://HOST:PORT',
    transport: '--stdio or --http',
};

/**
 * An unknown flag, in words that help: the flag meant (the nearest name, a typo or two away), or
 * what this server spells it as, instead of Node's "Unknown option … place it after '--'".
 */
function unknownFlag(table: readonly Flag[], err: Error): Error {
    // Node names the option in quotes: "Unknown option '--stdoi'. To specify a positional argument…"
    const given = /'(-[^']*)'/.exec(err.message)?.[1] ?? 'given';
    const name = given.replace(/^-+/, '');
    const instead = INSTEAD[name.toLowerCase()];
    if (instead) {
        return new Error(`unknown flag ${given}: use ${instead}`);
    }
    let best: string | undefined;
    let bestDistance = Infinity;
    for (const flag of table) {
        const distance = editDistance(name.toLowerCase(), flag.name);
        if (distance < bestDistance) {
            best = flag.name;
            bestDistance = distance;
        }
    }
    // A typo or two, never a guess from a different word: at most 2 edits, and under half the name.
    const near = best !== undefined && bestDistance <= Math.min(2, Math.floor(best.length / 2));
    return new Error(`unknown flag ${given}${near ? `; did you mean --${best}?` : ''}`);
}

/** Levenshtein distance, with a swap of two neighbours counting as one edit (stoid → stdio). */
export function editDistance(a: string, b: string): number {
    const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
    for (let i = 1; i <= a.length; i++) {
        for (let j = 1; j <= b.length; j++) {
            const cost = a[i - 1] === b[j - 1] ? 0 : 1;
            d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
            if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
                d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
            }
        }
    }
    return d[a.length]![b.length]!;
}

/**
 * Reads `argv`, then the environment for every flag argv did not give (a flag beats its variable;
 * a `oneOf` set given on the command line hides the environment's members of it). Throws an
 * Error whose message names the flag or the variable.
 */
export function parseFlags<const T extends readonly Flag[]>(table: T, argv: string[], env: NodeJS.ProcessEnv): ParsedFlags<T> {
    const command = table.find(flag => flag.type === 'command');
    const dashes = argv.indexOf('--');
    const options = dashes === -1 ? argv : argv.slice(0, dashes);
    let parsed: ReturnType<typeof parseArgs>;
    try {
        parsed = parseArgs({
            args: options,
            strict: true,
            allowPositionals: true,
            options: Object.fromEntries(
                table.map(flag => [
                    flag.name,
                    {
                        type: flag.type === 'switch' || flag.type === 'off' || flag.type === 'command' ? ('boolean' as const) : ('string' as const),
                        multiple: flag.type === 'list',
                        ...(flag.short ? { short: flag.short } : {}),
                    },
                ]),
            ),
        });
    } catch (err) {
        throw (err as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? unknownFlag(table, err as Error) : err;
    }
    const { values, positionals } = parsed;
    if (positionals.length > 0) {
        throw new Error(`unexpected argument "${positionals[0]}"${command ? ` (a program to run goes after --${command.name} --)` : ''}`);
    }
    const fromArgv: Record<string, Given> = values as Record<string, Given>;
    if (dashes !== -1) {
        if (!command || !fromArgv[command.name]) {
            throw new Error(command ? `"--" must follow --${command.name}` : 'unexpected "--"');
        }
        if (dashes === argv.length - 1) {
            throw new Error(`--${command.name} -- needs a program to run after "--"`);
        }
        fromArgv[command.name] = argv.slice(dashes + 1);
    } else if (command && fromArgv[command.name]) {
        throw new Error(`--${command.name}: write the program after "--": --${command.name} -- program arg…`);
    }
    const setsOnArgv = new Set(table.filter(flag => flag.oneOf && fromArgv[flag.name] !== undefined).map(flag => flag.oneOf));
    const out: Record<string, unknown> = {};
    const given = new Set<string>();
    const bySet = new Map<string, string>();
    for (const flag of table) {
        let source = `--${flag.name}`;
        let raw: Given | undefined = fromArgv[flag.name];
        const variable = envName(flag);
        if (raw === undefined && variable && env[variable] && !(flag.oneOf && setsOnArgv.has(flag.oneOf))) {
            raw = env[variable];
            source = variable;
        }
        out[flag.key] = read(flag, raw, source);
        if (raw !== undefined && !(flag.type === 'switch' && out[flag.key] === false) && !(flag.type === 'off' && out[flag.key] === true)) {
            given.add(flag.name);
            if (flag.oneOf) {
                const other = bySet.get(flag.oneOf);
                if (other) {
                    throw new Error(`Choose one ${flag.oneOf}: ${other} or ${source}`);
                }
                bySet.set(flag.oneOf, source);
            }
        }
    }
    return { values: out as FlagValues<T>, given: given as Set<T[number]['name']> };
}

/** The command line that gives `flag` the value `value` (nothing when it is the flag's off state). */
export function flagArgs(flag: Flag, value: string | number | boolean | readonly string[]): string[] {
    switch (flag.type) {
        case 'switch':
            return value ? [`--${flag.name}`] : [];
        case 'off':
            return value ? [] : [`--${flag.name}`];
        case 'list':
            return (value as readonly string[]).flatMap(item => [`--${flag.name}=${item}`]);
        case 'command':
            return (value as readonly string[]).length > 0 ? [`--${flag.name}`, '--', ...(value as readonly string[])] : [];
        default:
            // parseArgs takes a separate value that starts with "-" for a flag of its own.
            return String(value).startsWith('-') ? [`--${flag.name}=${String(value)}`] : [`--${flag.name}`, String(value)];
    }
}
