import { dirname, resolve } from 'node:path';
import { confineCwd, within } from './confine.js';
import { checkKeys } from './keys.js';
import { parseRunOptions, RUN_OPTION_KEYS, type RunOptions } from './runOptions.js';

/** One typed parameter of a command tool; it fills exactly one argv element (or ends one: `--name={param}`). */
export interface ParamSpec {
    type: 'string' | 'number' | 'boolean' | 'path';
    description: string;
    enum?: string[];
    /** Anchored: the whole value must match. */
    pattern?: string;
    /** An optional parameter that is absent drops its argv element. */
    optional: boolean;
    /**
     * Whether a string may start with `-`. Declared, or by default only where it cannot be read
     * as an option: at the end of an element (`--match={p}`) or after a `--` element. A path
     * never may.
     */
    allowLeadingDash: boolean;
    /** A boolean's flag: the element is this when true, and dropped when false or absent. */
    flag?: string;
}

/** A validated entry of the commands file. */
export interface CommandSpec extends RunOptions {
    name: string;
    title: string;
    description: string;
    command: string[];
    shell: boolean;
    parameters: Record<string, ParamSpec>;
    /** Absolute, inside one of the file's roots (its real path too: confineCwd). */
    cwd: string;
    /** The file's roots (absolute): where `cwd` must really be, checked again when a run starts. */
    roots: string[];
    env: Record<string, string>;
    timeoutMs?: number;
    killGraceMs: number;
    confirm: boolean;
    taskSupport: 'optional' | 'required' | 'forbidden';
    annotations?: Record<string, boolean>;
    progressPattern?: RegExp;
    /**
     * Instead of a process here: a job the owner (the editor extension) runs, such as a VS Code
     * task by label. Such a tool must run as a task; `command` is then empty.
     */
    ownerJob?: { kind: string; key: string };
}

export const DEFAULT_KILL_GRACE_MS = 5000;
const NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
/** A whole element `{p}`, or the end of one `--name={p}`: the value is pinned to its option. */
const PLACEHOLDER = /^([^{}]*)\{([a-zA-Z_][a-zA-Z0-9_]*)\}$/;
const ANY_PLACEHOLDER = /\{[a-zA-Z_][a-zA-Z0-9_]*\}/;
const ANNOTATIONS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
/** The keys a commands file knows, at each level: any other is refused (the extension's settings schema lists the same). */
export const FILE_KEYS = ['tools', 'roots'];
export const ENTRY_KEYS = [
    'name',
    'title',
    'description',
    'command',
    'shell',
    'parameters',
    'cwd',
    'env',
    'timeoutMs',
    'killGraceMs',
    'confirm',
    'taskSupport',
    'annotations',
    'progressPattern',
    'ownerJob',
    ...RUN_OPTION_KEYS,
];
export const PARAMETER_KEYS = ['type', 'description', 'enum', 'pattern', 'optional', 'allowLeadingDash', 'flag'];

/** The parameter an argv element stands for, and the text before it, if the element holds a placeholder. */
export function placeholderOf(element: string): { name: string; prefix: string } | undefined {
    const match = PLACEHOLDER.exec(element);
    return match ? { prefix: match[1]!, name: match[2]! } : undefined;
}

type Json = Record<string, unknown>;

/** Parses the commands file's text; every error names the entry and the field. */
export function parseCommandsFile(text: string, file: string): CommandSpec[] {
    let doc: unknown;
    try {
        doc = JSON.parse(text);
    } catch (err) {
        throw new Error(`${file}: not valid JSON: ${(err as Error).message}`, { cause: err });
    }
    if (!isObject(doc) || !Array.isArray(doc.tools)) {
        throw new Error(`${file}: expected {"tools": [...]}`);
    }
    checkKeys(doc, FILE_KEYS, file);
    const base = dirname(resolve(file));
    const roots = doc.roots === undefined ? [base] : stringArray(doc.roots, `${file}: roots`).map(root => resolve(base, root));
    const seen = new Set<string>();
    return doc.tools.map((entry, index) => {
        const spec = parseEntry(entry, `${file}: tools[${index}]`, base, roots);
        if (seen.has(spec.name)) {
            throw new Error(`${file}: tools[${index}] (${spec.name}): name: duplicate`);
        }
        seen.add(spec.name);
        return spec;
    });
}

function parseEntry(entry: unknown, where: string, base: string, roots: string[]): CommandSpec {
    if (!isObject(entry)) {
        throw new Error(`${where}: must be an object`);
    }
    if (typeof entry.name !== 'string' || !NAME.test(entry.name)) {
        throw new Error(`${where}: name: must match ${NAME}`);
    }
    const at = `${where} (${entry.name})`;
    const fail = (field: string, message: string): never => {
        throw new Error(`${at}: ${field}: ${message}`);
    };
    checkKeys(entry, ENTRY_KEYS, at);
    if (typeof entry.description !== 'string' || !entry.description.trim()) {
        fail('description', 'required: tell the model what the command does');
    }
    const ownerJob = parseOwnerJob(entry.ownerJob, at);
    if (ownerJob && entry.command !== undefined) {
        fail('ownerJob', 'an entry runs either a command or an owner job, not both');
    }
    const command = ownerJob ? [] : stringArray(entry.command, `${at}: command`);
    if (!ownerJob && (command.length === 0 || !command[0])) {
        fail('command', 'must name a program');
    }
    const shell = optionalBoolean(entry.shell, `${at}: shell`) ?? false;
    const parameters = parseParameters(entry.parameters, at, command, shell);
    command.forEach((element, i) => checkElement(element, i, parameters, shell, fail));
    const cwd = resolve(base, optionalString(entry.cwd, `${at}: cwd`) ?? '.');
    if (!roots.some(root => within(root, cwd))) {
        fail('cwd', `${cwd} is outside the declared roots (${roots.join(', ')})`);
    }
    const confined = confineCwd(cwd, roots);
    if (confined.refused !== undefined) {
        fail('cwd', confined.refused);
    }
    const env: Record<string, string> = {};
    if (entry.env !== undefined) {
        if (!isObject(entry.env)) {
            fail('env', 'must be an object of strings');
        }
        for (const [key, value] of Object.entries(entry.env as Json)) {
            if (typeof value !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
                fail(`env.${key}`, 'must be a string under a variable name');
            }
            env[key] = value as string;
        }
    }
    const taskSupport = entry.taskSupport ?? (ownerJob ? 'required' : 'optional');
    if (ownerJob && taskSupport !== 'required') {
        fail('taskSupport', 'an owner job runs only as a task: required');
    }
    if (taskSupport !== 'optional' && taskSupport !== 'required' && taskSupport !== 'forbidden') {
        fail('taskSupport', 'must be optional, required or forbidden');
    }
    let annotations: Record<string, boolean> | undefined;
    if (entry.annotations !== undefined) {
        if (!isObject(entry.annotations)) {
            fail('annotations', 'must be an object');
        }
        annotations = {};
        for (const [key, value] of Object.entries(entry.annotations as Json)) {
            if (!ANNOTATIONS.includes(key) || typeof value !== 'boolean') {
                fail(`annotations.${key}`, `must be one of ${ANNOTATIONS.join(', ')} with a boolean`);
            }
            annotations[key] = value as boolean;
        }
    }
    let progressPattern: RegExp | undefined;
    const pattern = optionalString(entry.progressPattern, `${at}: progressPattern`);
    if (pattern !== undefined) {
        try {
            progressPattern = new RegExp(pattern);
        } catch (err) {
            fail('progressPattern', (err as Error).message);
        }
    }
    return {
        name: entry.name,
        title: optionalString(entry.title, `${at}: title`) ?? entry.name,
        description: entry.description as string,
        command,
        shell,
        parameters,
        cwd,
        roots,
        env,
        timeoutMs: optionalPositive(entry.timeoutMs, `${at}: timeoutMs`),
        killGraceMs: optionalPositive(entry.killGraceMs, `${at}: killGraceMs`) ?? DEFAULT_KILL_GRACE_MS,
        confirm: optionalBoolean(entry.confirm, `${at}: confirm`) ?? false,
        taskSupport: taskSupport as CommandSpec['taskSupport'],
        annotations,
        progressPattern,
        ownerJob,
        ...parseRunOptions(entry, fail),
    };
}

function parseOwnerJob(value: unknown, at: string): CommandSpec['ownerJob'] {
    if (value === undefined) {
        return undefined;
    }
    if (!isObject(value) || typeof value.kind !== 'string' || !value.kind || typeof value.key !== 'string' || !value.key) {
        throw new Error(`${at}: ownerJob: must be {"kind": "…", "key": "…"}`);
    }
    checkKeys(value, ['kind', 'key'], `${at}: ownerJob`);
    return { kind: value.kind, key: value.key };
}

/** Where an argv element may hold a placeholder, and that it names a declared parameter (own keys only: no `{constructor}`). */
function checkElement(element: string, i: number, parameters: Record<string, ParamSpec>, shell: boolean, fail: (field: string, message: string) => never): void {
    // With shell: true the first element is the script, never filled in: `${HOME}` there is the shell's.
    if (i === 0 && shell) {
        return;
    }
    const placeholder = placeholderOf(element);
    if (placeholder === undefined) {
        if (ANY_PLACEHOLDER.test(element)) {
            fail(`command[${i}]`, `"${element}": a {parameter} must be a whole argv element or end one (--name={parameter})`);
        }
        return;
    }
    if (i === 0) {
        fail('command[0]', 'the program cannot be a parameter');
    }
    const param = Object.hasOwn(parameters, placeholder.name) ? parameters[placeholder.name] : undefined;
    if (param === undefined) {
        fail(`command[${i}]`, `{${placeholder.name}} names no declared parameter`);
    } else if (param.flag !== undefined && placeholder.prefix !== '') {
        fail(`command[${i}]`, `{${placeholder.name}} stands for a flag, so it must be a whole argv element`);
    }
}

function parseParameters(value: unknown, at: string, command: readonly string[], shell: boolean): Record<string, ParamSpec> {
    const result: Record<string, ParamSpec> = {};
    if (value === undefined) {
        return result;
    }
    if (!isObject(value)) {
        throw new Error(`${at}: parameters: must be an object`);
    }
    const bare = bareParameters(command, shell);
    for (const [name, raw] of Object.entries(value)) {
        const where = `${at}: parameters.${name}`;
        if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name) || name === '__proto__' || !isObject(raw)) {
            throw new Error(`${where}: must be an object under an identifier`);
        }
        checkKeys(raw, PARAMETER_KEYS, where);
        if (raw.type !== 'string' && raw.type !== 'number' && raw.type !== 'boolean' && raw.type !== 'path') {
            throw new Error(`${where}: type: must be string, number, boolean or path`);
        }
        if (typeof raw.description !== 'string' || !raw.description.trim()) {
            throw new Error(`${where}: description: required`);
        }
        const flag = optionalString(raw.flag, `${where}: flag`);
        if (flag !== undefined && (raw.type !== 'boolean' || flag === '' || flag.includes('\0'))) {
            throw new Error(`${where}: flag: only for a boolean, as the argument it adds (such as "--coverage")`);
        }
        const allowLeadingDash = optionalBoolean(raw.allowLeadingDash, `${where}: allowLeadingDash`);
        if (allowLeadingDash !== undefined && raw.type !== 'string') {
            throw new Error(`${where}: allowLeadingDash: only for a string (a path never starts with "-")`);
        }
        const spec: ParamSpec = {
            type: raw.type,
            description: raw.description,
            // A flag that is left out is simply not given.
            optional: optionalBoolean(raw.optional, `${where}: optional`) ?? flag !== undefined,
            allowLeadingDash: raw.type === 'string' ? (allowLeadingDash ?? !bare.has(name)) : false,
            ...(flag === undefined ? {} : { flag }),
        };
        if (raw.enum !== undefined) {
            spec.enum = stringArray(raw.enum, `${where}: enum`);
            if (raw.type !== 'string' || spec.enum.length === 0) {
                throw new Error(`${where}: enum: only for a string, with at least one value`);
            }
        }
        if (raw.pattern !== undefined) {
            spec.pattern = optionalString(raw.pattern, `${where}: pattern`);
            try {
                new RegExp(spec.pattern!);
            } catch (err) {
                throw new Error(`${where}: pattern: ${(err as Error).message}`, { cause: err });
            }
        }
        result[name] = spec;
    }
    return result;
}

/** The parameters that fill a whole element before any `--`: values there that start with "-" would be read as options. */
function bareParameters(command: readonly string[], shell: boolean): Set<string> {
    const bare = new Set<string>();
    const end = command.indexOf('--', shell ? 1 : 0);
    command.forEach((element, i) => {
        const placeholder = placeholderOf(element);
        if (i > 0 && placeholder?.prefix === '' && (end < 0 || i < end)) {
            bare.add(placeholder.name);
        }
    });
    return bare;
}

function isObject(value: unknown): value is Json {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringArray(value: unknown, where: string): string[] {
    if (!Array.isArray(value) || !value.every(v => typeof v === 'string')) {
        throw new Error(`${where}: must be an array of strings`);
    }
    if (value.some(v => (v as string).includes('\0'))) {
        throw new Error(`${where}: must not contain NUL`);
    }
    return value as string[];
}

function optionalString(value: unknown, where: string): string | undefined {
    if (value !== undefined && typeof value !== 'string') {
        throw new Error(`${where}: must be a string`);
    }
    return value;
}

function optionalBoolean(value: unknown, where: string): boolean | undefined {
    if (value !== undefined && typeof value !== 'boolean') {
        throw new Error(`${where}: must be true or false`);
    }
    return value;
}

function optionalPositive(value: unknown, where: string): number | undefined {
    if (value !== undefined && (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value))) {
        throw new Error(`${where}: must be a positive number of milliseconds`);
    }
    return value;
}
