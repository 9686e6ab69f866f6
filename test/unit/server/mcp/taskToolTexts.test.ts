/**
 * What the task tools say to a model: every tool name a description or the instructions mention
 * is served under the same flags; get_task's texts are whole sentences; a wait_seconds past the
 * limit is cut to it, not refused. Unit level, on a virtual clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { demoServerOptions } from '../../../../server/src/demo/options.js';
import { createLogger } from '../../../../server/src/util/log.js';
import { RequestAbort } from '../../../../server/src/rpc/requestAbort.js';
import { TasksServer } from '../../../../server/src/server.js';
import { conformanceFixtures } from '../../../../server/src/demo/conformance/index.js';
import { defineTool, textResult, type CallToolResult, type ToolDefinition } from '../../../../server/src/tools/types.js';
import { ManualClock } from '../../../support/manualClock.js';
import { promisesDrained } from '../../../support/wait.js';
import { nap } from '../../../support/napTool.js';

/** A command tool as --commands would add one. */
const commandTool = defineTool({
    name: 'print',
    title: 'Print',
    description: 'Prints lines.',
    inputSchema: z.object({}),
    taskSupport: 'optional',
    run: async () => textResult('printed'),
});

interface Combination {
    flags: string;
    tools: ToolDefinition[];
    taskTools: boolean;
    instructions: string;
}

/** The tool sets the CLI serves (cli.ts): fixtures, demos and commands, each on or off, with or without task tools. */
function combinations(): Combination[] {
    const out: Combination[] = [];
    for (const demoTools of [true, false]) {
        for (const taskTools of [true, false]) {
            for (const fixtures of [true, false]) {
                for (const commands of [true, false]) {
                    const demo = demoServerOptions(taskTools, demoTools);
                    out.push({
                        flags: [demoTools ? '' : '--no-demo-tools', taskTools ? '' : '--no-task-tools', fixtures ? '--conformance-fixtures' : '', commands ? '--commands' : ''].filter(Boolean).join(' ') || '(none)',
                        tools: [...(fixtures ? conformanceFixtures(() => undefined) : []), ...demo.tools, ...(commands ? [commandTool] : [])],
                        taskTools,
                        instructions: demo.instructions,
                    });
                }
            }
        }
    }
    return out;
}

function listed(server: TasksServer): Record<string, unknown>[] {
    const { tools, taskTools } = server.services;
    return [...tools.list(), ...(taskTools?.list() ?? [])];
}

/** Every string in a tools/list entry: descriptions, titles, argument descriptions. */
function textsOf(value: unknown): string[] {
    if (typeof value === 'string') {
        return [value];
    }
    if (typeof value === 'object' && value !== null) {
        return Object.entries(value).flatMap(([key, child]) => (key === 'name' ? [] : textsOf(child)));
    }
    return [];
}

function quiet(options: ConstructorParameters<typeof TasksServer>[0] = {}): TasksServer {
    return new TasksServer({ logger: createLogger('error', () => undefined), ...options });
}

describe('the texts a model reads', () => {
    it('name only tools that are served, under every combination of flags', () => {
        const all = combinations().map(combination => ({ combination, entries: listed(quiet({ tools: combination.tools, taskTools: combination.taskTools })) }));
        const everyName = new Set(all.flatMap(({ entries }) => entries.map(entry => entry.name as string)));
        const wrong: string[] = [];
        for (const { combination, entries } of all) {
            const served = new Set(entries.map(entry => entry.name as string));
            const texts = [...entries.flatMap(entry => textsOf(entry).map(text => [entry.name as string, text] as const)), ['instructions', combination.instructions] as const];
            for (const [where, text] of texts) {
                for (const name of everyName) {
                    if (!served.has(name) && new RegExp(`(^|[^\\w])${name}($|[^\\w])`).test(text)) {
                        wrong.push(`${combination.flags}: ${where} mentions ${name}, which is not served`);
                    }
                }
            }
        }
        assert.deepEqual(wrong, []);
        // The check has teeth: start_slow_compute is one of the names it looks for.
        assert.ok(everyName.has('start_slow_compute'));
    });

    it('end a required-task tool\'s description with the start_ tool to call, only when the task tools are served', () => {
        const tools = demoServerOptions(true, true).tools;
        const described = (taskTools: boolean) => listed(quiet({ tools, taskTools })).find(entry => entry.name === 'failing_job')?.description as string;
        // A host whose client refuses the plain call itself (opencode) leaves the model only this to go by.
        assert.match(described(true), /Runs only as a task: call start_failing_job with the same arguments, then get_task with the task_id it returns\.$/);
        assert.doesNotMatch(described(false), /start_failing_job/);
        assert.doesNotMatch(listed(quiet({ tools, taskTools: true })).find(entry => entry.name === 'slow_compute')?.description as string, /Runs only as a task/);
    });

    it('end get_task\'s status line with a full stop before "Its result follows."', async () => {
        const concluding = defineTool({
            name: 'concluding',
            title: 'Concluding',
            description: 'Completes with a status message that has no full stop.',
            inputSchema: z.object({}),
            taskSupport: 'optional',
            async run(_args, ctx) {
                ctx.conclude?.('Confirmed');
                return textResult('done');
            },
        });
        const server = quiet({ tools: [concluding, nap], taskTools: true });
        const caller = { services: server.services, identity: { clientKey: 'c', isOwner: false } };
        const taskTools = server.services.taskTools!;
        const getTask = async (taskId: string): Promise<string> => {
            const result = await taskTools.call(caller, taskTools.get('get_task')!, { task_id: taskId, wait_seconds: 5 }, new RequestAbort());
            return (result.content[0] as { text: string }).text;
        };
        try {
            const done = await server.runtime.createTask(caller.identity, concluding, {}, { background: true });
            assert.equal(await getTask(done.taskId), `Task ${done.taskId} (concluding) completed: Confirmed. Its result follows.`);
            const napping = await server.runtime.createTask(caller.identity, nap, { ms: 3_600_000 }, { background: true });
            await server.runtime.cancel(caller.identity, napping.taskId);
            assert.equal(await getTask(napping.taskId), `Task ${napping.taskId} (nap) cancelled: Cancelled by the client. Its result follows.`);
        } finally {
            await server.close();
        }
    });

    it('show a tool\'s numeric progress as text when no message says more', async () => {
        const clock = new ManualClock();
        const counter = defineTool({
            name: 'counter',
            title: 'Counter',
            description: 'Reports 40 of 100, then waits.',
            inputSchema: z.object({}),
            taskSupport: 'optional',
            async run(_args, ctx) {
                ctx.progress(40, 100);
                await ctx.sleep(3_600_000);
                return textResult('counted');
            },
        });
        const server = quiet({ tools: [counter], taskTools: true, clock });
        const caller = { services: server.services, identity: { clientKey: 'c', isOwner: false } };
        const taskTools = server.services.taskTools!;
        try {
            const task = await server.runtime.createTask(caller.identity, counter, {}, { background: true });
            await promisesDrained();
            const answer = await taskTools.call(caller, taskTools.get('get_task')!, { task_id: task.taskId }, new RequestAbort());
            assert.equal((answer.content[0] as { text: string }).text, `Task ${task.taskId} (counter) is working (progress: 40 of 100, 40 %). Call get_task again later for its result.`);
            assert.equal((answer.structuredContent as { progress?: string }).progress, '40 of 100, 40 %');
        } finally {
            await server.close();
        }
    });

    for (const [deferAfterMs, limit] of [[undefined, 50], [20_000, 20]] as const) {
        it(`cut a wait_seconds over ${limit} to ${limit} seconds with --defer-after ${deferAfterMs ?? 'at its default'}, and say so`, async () => {
            const clock = new ManualClock();
            const server = quiet({ tools: [nap], taskTools: true, clock, deferAfterMs });
            const caller = { services: server.services, identity: { clientKey: 'c', isOwner: false } };
            const taskTools = server.services.taskTools!;
            const getTaskTool = taskTools.get('get_task')!;
            try {
                assert.match(getTaskTool.definition.description, new RegExp(`at most ${limit} seconds: a longer wait is cut to ${limit}`));
                const task = await server.runtime.createTask(caller.identity, nap, { ms: 3_600_000 }, { background: true });
                let answer: CallToolResult | undefined;
                const answered = taskTools.call(caller, getTaskTool, { task_id: task.taskId, wait_seconds: 600 }, new RequestAbort()).then(result => (answer = result));
                await promisesDrained();
                assert.equal(answer, undefined, 'it waits');
                await clock.tick(limit * 1000 - 1);
                assert.equal(answer, undefined, `still waiting just before ${limit} s`);
                await clock.tick(1);
                await answered;
                // Set by the callback above (the compiler narrowed it to undefined).
                const got = answer as CallToolResult | undefined;
                assert.notEqual(got?.isError, true);
                assert.match((got!.content[0] as { text: string }).text, /is working\. Call get_task again later/);
            } finally {
                await server.close();
            }
        });
    }
});
