import { z } from 'zod';
import { currentPlatform, type Platform } from '../platform/index.js';
import { resolvesInside } from './confine.js';
import { placeholderOf, type CommandSpec, type ParamSpec } from './spec.js';

/**
 * The zod schema of a command's parameters: enum, anchored pattern, no NUL, no leading dash where
 * it would be an option, paths kept inside cwd, and for a `shell: true` command no value the OS's
 * shell could read as its own syntax (cmd.exe on Windows).
 */
export function inputSchemaOf(spec: CommandSpec, platform: Platform = currentPlatform): z.ZodObject {
    const shape: Record<string, z.ZodType> = {};
    for (const [name, param] of Object.entries(spec.parameters)) {
        const schema = paramSchema(param, spec.cwd, spec.shell ? platform : undefined).describe(param.description);
        shape[name] = param.optional ? schema.optional() : schema;
    }
    return z.object(shape).strict();
}

function paramSchema(param: ParamSpec, cwd: string, shell: Platform | undefined): z.ZodType {
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
    if (shell !== undefined) {
        schema = schema.superRefine((value, ctx) => {
            const refusal = shell.shellRefusal(value);
            if (refusal !== undefined) {
                ctx.addIssue({ code: 'custom', message: refusal });
            }
        });
    }
    if (param.pattern !== undefined) {
        const anchored = new RegExp(`^(?:${param.pattern})$`, 'u');
        schema = schema.refine(value => anchored.test(value), `must match ${param.pattern}`);
    }
    if (param.type === 'path') {
        schema = schema
            .refine(value => !value.startsWith('-'), 'must not start with "-" (write ./-name for such a file)')
            .refine(value => resolvesInside(cwd, value), 'must be a relative path inside the working directory, symbolic links included');
    } else if (!param.allowLeadingDash) {
        schema = schema.refine(value => !value.startsWith('-'), 'must not start with "-": the command would read it as an option');
    }
    return schema;
}

/**
 * The argv to spawn: each placeholder replaced by its argument within its one element (an absent
 * optional one drops the element; a boolean with a flag gives the flag or nothing), never joined
 * into a string. With `shell: true` the first element is the script for the platform's shell and
 * the rest, parameters included, its parameters (Platform.shellArgv: `$1`… for sh).
 */
export function buildArgv(spec: CommandSpec, args: Record<string, unknown>, platform: Platform = currentPlatform): string[] {
    const argv: string[] = [];
    spec.command.forEach((element, i) => {
        const placeholder = i === 0 ? undefined : placeholderOf(element);
        if (placeholder === undefined) {
            argv.push(element);
            return;
        }
        const value = Object.hasOwn(args, placeholder.name) ? args[placeholder.name] : undefined;
        const flag = spec.parameters[placeholder.name]?.flag;
        if (value === undefined || (flag !== undefined && value !== true)) {
            return;
        }
        argv.push(flag ?? placeholder.prefix + String(value));
    });
    return spec.shell ? platform.shellArgv(argv[0]!, spec.name, argv.slice(1)) : argv;
}

/** The command line as the user reads it in a confirmation: each element quoted where needed. */
export function displayCommand(argv: readonly string[]): string {
    return argv.map(arg => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(' ');
}
