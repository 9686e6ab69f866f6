import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { placeholderOf, within, type CommandSpec, type ParamSpec } from './spec.js';

/** The zod schema of a command's parameters: enum, anchored pattern, no NUL, paths kept inside cwd. */
export function inputSchemaOf(spec: CommandSpec): z.ZodObject {
    const shape: Record<string, z.ZodType> = {};
    for (const [name, param] of Object.entries(spec.parameters)) {
        const schema = paramSchema(param, spec.cwd).describe(param.description);
        shape[name] = param.optional ? schema.optional() : schema;
    }
    return z.object(shape).strict();
}

function paramSchema(param: ParamSpec, cwd: string): z.ZodType {
    if (param.type === 'number') {
        return z.number().finite();
    }
    if (param.type === 'boolean') {
        return z.boolean();
    }
    if (param.enum) {
        return z.enum(param.enum as [string, ...string[]]);
    }
    let schema = z.string().max(4096).refine(value => !value.includes('\0'), 'must not contain NUL');
    if (param.pattern !== undefined) {
        const anchored = new RegExp(`^(?:${param.pattern})$`, 'u');
        schema = schema.refine(value => anchored.test(value), `must match ${param.pattern}`);
    }
    if (param.type === 'path') {
        schema = schema.refine(value => value !== '' && !isAbsolute(value) && within(cwd, resolve(cwd, value)), 'must be a relative path inside the working directory');
    }
    return schema;
}

/**
 * The argv to spawn: each placeholder element replaced by its argument as one whole element (an
 * absent optional one dropped), never joined into a string. With `shell: true` the first element
 * is the script for `sh -c` and the rest, parameters included, are its positional `$1`…
 */
export function buildArgv(spec: CommandSpec, args: Record<string, unknown>): string[] {
    const argv: string[] = [];
    for (const element of spec.command) {
        const name = placeholderOf(element);
        if (name === undefined) {
            argv.push(element);
            continue;
        }
        const value = args[name];
        if (value === undefined) {
            continue;
        }
        argv.push(String(value));
    }
    return spec.shell ? ['/bin/sh', '-c', argv[0]!, spec.name, ...argv.slice(1)] : argv;
}

/** The command line as the user reads it in a confirmation: each element quoted where needed. */
export function displayCommand(argv: readonly string[]): string {
    return argv.map(arg => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(' ');
}
