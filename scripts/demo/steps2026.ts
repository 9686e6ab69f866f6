import { expect, sleep, type DemoContext } from './context.js';
import { curl, rpc, RpcFailure, TASKS_EXTENSION } from './stateless.js';
import type { Step } from './steps.js';

type Json = Record<string, unknown>;
const TERMINAL = ['completed', 'failed', 'cancelled'];

function text(result: Json | undefined): string {
    return ((result?.content as { type: string; text?: string }[] | undefined) ?? []).map(part => part.text ?? '').join(' ');
}

/** Polls tasks/get at the task's pollIntervalMs until `done` says so. */
async function pollUntil(ctx: DemoContext, taskId: string, done: (task: Json) => boolean): Promise<Json> {
    for (let i = 0; i < 120; i++) {
        const task = await rpc(ctx, 'tasks/get', { taskId });
        if (done(task)) {
            return task;
        }
        await sleep(Math.min(Number(task.pollIntervalMs ?? 1000), 1000));
    }
    throw new Error(`task ${taskId} did not get there`);
}

async function discoverStep(ctx: DemoContext): Promise<void> {
    const result = await rpc(ctx, 'server/discover');
    expect(ctx, 'server/discover lists 2026-07-28 among the supported versions', (result.supportedVersions as string[]).includes('2026-07-28'), result.supportedVersions);
    const extensions = (result.capabilities as { extensions?: Json }).extensions ?? {};
    expect(ctx, 'the server offers the tasks extension', extensions[TASKS_EXTENSION] !== undefined, result.capabilities);
    const tools = await rpc(ctx, 'tools/list');
    expect(ctx, `tools/list carries caching hints (ttlMs ${String(tools.ttlMs)}, cacheScope ${String(tools.cacheScope)})`, typeof tools.ttlMs === 'number' && typeof tools.cacheScope === 'string');
    ctx.term.note('No initialize, no session: every request carries its version and capabilities in _meta.');
    ctx.term.command('first, for the curl commands', `export MCP_URL=${ctx.url}${ctx.token ? ` MCP_TASKS_TOKEN=${ctx.token}` : ''}`);
    ctx.term.command('curl', curl(ctx, 'server/discover', {}));
}

async function greetStep(ctx: DemoContext): Promise<void> {
    const result = await rpc(ctx, 'tools/call', { name: 'greet', arguments: { name: 'World' } });
    expect(ctx, 'greet answers in the request: resultType "complete", "Hello, World!"', result.resultType === 'complete' && text(result) === 'Hello, World!', result);
    ctx.term.command('curl', curl(ctx, 'tools/call', { name: 'greet', arguments: { name: 'World' } }));
}

async function taskStep(ctx: DemoContext): Promise<void> {
    const params = { name: 'slow_compute', arguments: { seconds: 2, label: 'demo' } };
    const created = await rpc(ctx, 'tools/call', params);
    expect(ctx, `the server made it a task: resultType "task", taskId ${String(created.taskId)}`, created.resultType === 'task' && typeof created.taskId === 'string', created);
    expect(ctx, `flat fields ttlMs (${String(created.ttlMs)}) and pollIntervalMs (${String(created.pollIntervalMs)})`, typeof created.ttlMs === 'number' && typeof created.pollIntervalMs === 'number');
    const done = await pollUntil(ctx, created.taskId as string, task => TERMINAL.includes(task.status as string));
    expect(ctx, 'tasks/get reached completed with the result inline (no tasks/result)', done.status === 'completed' && /Result: 42/.test(text(done.result as Json)), done);
    ctx.term.command('curl', curl(ctx, 'tools/call', params));
    ctx.term.command('curl (poll)', curl(ctx, 'tasks/get', { taskId: created.taskId }));
}

async function failingStep(ctx: DemoContext): Promise<void> {
    const code = await rpc(ctx, 'tools/call', { name: 'failing_job', arguments: {} }, { elicitation: {} }).then(
        () => undefined,
        (err: unknown) => (err instanceof RpcFailure ? err.code : String(err)),
    );
    expect(ctx, 'without the tasks extension a task-only tool answers -32021 (Missing Required Client Capability)', code === -32021, code);
    const created = await rpc(ctx, 'tools/call', { name: 'failing_job', arguments: {} });
    const done = await pollUntil(ctx, created.taskId as string, task => TERMINAL.includes(task.status as string));
    expect(ctx, 'a tool error is "completed" with result.isError (failed is only for protocol errors)', done.status === 'completed' && (done.result as Json).isError === true, done);
}

async function cancelStep(ctx: DemoContext): Promise<void> {
    const created = await rpc(ctx, 'tools/call', { name: 'slow_compute', arguments: { seconds: 30, label: 'long-job' } });
    const taskId = created.taskId as string;
    const ack = await rpc(ctx, 'tasks/cancel', { taskId });
    expect(ctx, 'tasks/cancel is an empty acknowledgement', JSON.stringify(ack) === '{"resultType":"complete"}', ack);
    const again = await rpc(ctx, 'tasks/cancel', { taskId });
    expect(ctx, 'and idempotent', JSON.stringify(again) === '{"resultType":"complete"}', again);
    const done = await pollUntil(ctx, taskId, task => TERMINAL.includes(task.status as string));
    expect(ctx, 'the task is cancelled', done.status === 'cancelled', done.status);
    ctx.term.command('curl', curl(ctx, 'tasks/cancel', { taskId }));
}

async function answerStep(ctx: DemoContext, tool: string, args: Json, answer: (request: Json) => Promise<Json>, check: RegExp): Promise<void> {
    const created = await rpc(ctx, 'tools/call', { name: tool, arguments: args });
    const taskId = created.taskId as string;
    const waiting = await pollUntil(ctx, taskId, task => task.status === 'input_required' || TERMINAL.includes(task.status as string));
    const requests = (waiting.inputRequests ?? {}) as Record<string, Json>;
    const [key, request] = Object.entries(requests)[0] ?? [];
    expect(ctx, `the task waits in input_required with an inputRequests entry (${String(key)}: ${String(request?.method)})`, waiting.status === 'input_required' && key !== undefined, waiting);
    const ack = await rpc(ctx, 'tasks/update', { taskId, inputResponses: { [key!]: await answer(request!) } });
    expect(ctx, 'tasks/update answers it (an empty acknowledgement)', ack.resultType === 'complete', ack);
    const done = await pollUntil(ctx, taskId, task => TERMINAL.includes(task.status as string));
    expect(ctx, `the task completes: ${text(done.result as Json)}`, done.status === 'completed' && check.test(text(done.result as Json)), done);
    ctx.term.command('curl (answer)', curl(ctx, 'tasks/update', { taskId, inputResponses: { [key!]: '<answer>' } }));
}

async function elicitationStep(ctx: DemoContext): Promise<void> {
    await answerStep(
        ctx,
        'confirm_delete',
        { filename: 'notes/old-draft.md' },
        async request => {
            const message = String((request.params as Json).message);
            const reply = ctx.term.interactive ? await ctx.term.ask(`${message} [y/N] `) : 'y';
            if (!ctx.term.interactive) {
                ctx.term.note('--non-interactive: answering "yes" automatically');
            }
            return { action: 'accept', content: { confirm: /^y/i.test(reply.trim()) ? 'delete' : 'keep' } };
        },
        /Confirmed: would delete 'notes\/old-draft\.md'|Deletion cancelled/,
    );
}

async function samplingStep(ctx: DemoContext): Promise<void> {
    await answerStep(
        ctx,
        'write_haiku',
        { topic: 'autumn rain' },
        async () => ({ role: 'assistant', model: 'demo-canned', content: { type: 'text', text: 'a canned haiku:\nrain taps the window\nthe task waits for its answer\nthen the poem ends' } }),
        /canned haiku/,
    );
}

/** The walkthrough against protocol 2026-07-28 (`npm run demo -- --protocol 2026-07-28`). */
export const STEPS_2026: readonly Step[] = [
    { title: 'Discover the server (no initialize, no session)', run: discoverStep },
    { title: 'Call a tool in the request (greet)', run: greetStep },
    { title: 'The server makes a call a task; poll it to its inline result (slow_compute)', run: taskStep },
    { title: 'Without the extension, -32021; a tool error is completed + isError (failing_job)', run: failingStep },
    { title: 'Cancel a running task (an idempotent acknowledgement)', run: cancelStep },
    { title: 'Answer an inputRequests elicitation with tasks/update (confirm_delete)', run: elicitationStep },
    { title: 'Answer an inputRequests sampling request with tasks/update (write_haiku)', run: samplingStep },
];
