import { isConsent, safeConfirmSchema, type SafeConfirm } from '../tools/safeConfirm.js';
import { textResult, type ToolDefinition } from '../tools/types.js';
import { buildArgv, displayCommand, inputSchemaOf } from './argv.js';
import type { CommandLimits } from './limits.js';
import { commandOutputSchema } from './result.js';
import { runCommand, type RunDeps } from './run.js';
import { durationText } from './runOptions.js';
import type { ClientHub } from '../tasks/hub.js';
import { ownerJobHandler } from './ownerJob.js';
import type { CommandSpec } from './spec.js';

export interface CommandDeps extends RunDeps {
    /** Where owner jobs go: the server's connections (absent: an entry with ownerJob is refused). */
    hub?: () => ClientHub;
    /** Each command's concurrency and the server's cap on command processes. */
    limits: CommandLimits;
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
        description: commandDescription(spec, deps.readOutput === true),
        inputSchema,
        outputSchema: commandOutputSchema,
        annotations: spec.annotations,
        taskSupport: spec.taskSupport,
        keyArgument,
        maxUnpolledMs: spec.maxUnpolledMs,
        outlivesServer: true,
        output: taskId => deps.logs.find(taskId),
        async run(args, ctx) {
            if (spec.confirm) {
                const line = displayCommand(buildArgv(spec, args));
                const question = runQuestion(line);
                const answer = await ctx.elicit({ mode: 'form', message: `Run this command in ${spec.cwd}?\n\n${line}`, requestedSchema: safeConfirmSchema(question) });
                if (!isConsent(question, answer)) {
                    return textResult(`Not run: the user declined ${line}`, true);
                }
            }
            const argv = buildArgv(spec, args);
            const follow = (log: Parameters<typeof deps.logs.share>[1]) =>
                ctx.taskId !== undefined ? deps.logs.share(ctx.taskId, log) : ctx.onDeferred?.(taskId => deps.logs.share(taskId, log));
            return deps.limits.run(spec, argv, ctx, opened => runCommand(spec, args, ctx, deps, opened), follow);
        },
    };
}

/** What the model reads about a command: the author's words, how long it takes, what it runs and where (read_output only when it exists). */
function commandDescription(spec: CommandSpec, readOutput: boolean): string {
    const expected = spec.expectedDurationMs === undefined ? '' : ` Usually takes ${durationText(spec.expectedDurationMs)}.`;
    const limit = spec.timeoutMs === undefined ? '' : ` Stopped after ${durationText(spec.timeoutMs).replace('about ', '')}.`;
    const read = readOutput ? '; read_output reads any part of it, also while it runs' : '';
    return `${spec.description}\n\nRuns: ${displayCommand(spec.command)} (in ${spec.cwd}).${expected}${limit} The result sums up the output (failing lines first) and names the full log${read}.`;
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
