import { z } from 'zod';
import { isConsent, safeConfirmSchema, type SafeConfirm } from '../tools/safeConfirm.js';
import { textResult, type ToolDefinition } from '../tools/types.js';
import { buildArgv, displayCommand, inputSchemaOf } from './argv.js';
import { runCommand, type RunDeps } from './run.js';
import type { ClientHub } from '../tasks/hub.js';
import { ownerJobHandler } from './ownerJob.js';
import type { CommandSpec } from './spec.js';

const outputSchema = z.object({
    command: z.array(z.string()),
    exitCode: z.number().nullable(),
    signal: z.string().nullable().optional(),
    durationMs: z.number(),
    output: z.string().describe('The last lines of stdout and stderr'),
    logPath: z.string().describe('The full output'),
});

export interface CommandDeps extends RunDeps {
    /** Where owner jobs go: the server's connections (absent: an entry with ownerJob is refused). */
    hub?: () => ClientHub;
}

/** A declared command as a tool: its parameters are the input schema, its run a process (or an owner's job). */
export function commandTool(spec: CommandSpec, deps: CommandDeps): ToolDefinition {
    const inputSchema = inputSchemaOf(spec);
    const keyArgument = Object.keys(spec.parameters)[0];
    if (spec.ownerJob) {
        if (!deps.hub) {
            throw new Error(`${spec.name}: ownerJob: this server has no owner connections to run it`);
        }
        return {
            name: spec.name,
            title: spec.title,
            description: spec.description,
            inputSchema,
            annotations: spec.annotations,
            taskSupport: 'required',
            keyArgument,
            external: ownerJobHandler(deps.hub, spec.ownerJob.kind, spec.ownerJob.key),
        };
    }
    return {
        name: spec.name,
        title: spec.title,
        description: `${spec.description}\n\nRuns: ${displayCommand(spec.command)} (in ${spec.cwd}).`,
        inputSchema,
        outputSchema,
        annotations: spec.annotations,
        taskSupport: spec.taskSupport,
        keyArgument,
        async run(args, ctx) {
            if (spec.confirm) {
                const line = displayCommand(buildArgv(spec, args));
                const question = runQuestion(line);
                const answer = await ctx.elicit({ mode: 'form', message: `Run this command in ${spec.cwd}?\n\n${line}`, requestedSchema: safeConfirmSchema(question) });
                if (!isConsent(question, answer)) {
                    return textResult(`Not run: the user declined ${line}`, true);
                }
            }
            return runCommand(spec, args, ctx, deps);
        },
    };
}

/** Cancel comes first and is the default, so Enter in any client runs nothing. */
export function runQuestion(line: string): SafeConfirm {
    return {
        key: 'run',
        title: 'Run the command',
        description: line,
        safe: { value: 'cancel', title: 'Do not run it' },
        unsafe: { value: 'run', title: 'Run the command' },
    };
}
