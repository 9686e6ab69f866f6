import { CallToolResultSchema, CreateTaskResultSchema, McpError, type GetTaskResult } from '@modelcontextprotocol/sdk/types.js';
import { expect, sleep, waitFor, type DemoContext } from '../context.js';
import { RELATED_TASK, toolResultText } from '../wire.js';
import { connected } from './basics.js';

const TERMINAL = ['completed', 'failed', 'cancelled'];

/** Step 3: tools/call with `task`: the server answers at once with a CreateTaskResult. */
export async function createTaskStep(ctx: DemoContext): Promise<void> {
    const { client } = connected(ctx);
    const progress: number[] = [];
    const params = { name: 'slow_compute', arguments: { seconds: 3, label: 'demo' }, task: { ttl: 600_000 } };
    // onprogress makes the SDK put a progressToken in _meta; the task's progress reuses it.
    const created = await client.request({ method: 'tools/call', params }, CreateTaskResultSchema, { onprogress: p => progress.push(p.progress) });
    const { task } = created;
    ctx.term.note(`CreateTaskResult: ${JSON.stringify(created)}`);
    expect(ctx, `the task exists and is working (taskId ${task.taskId})`, task.status === 'working' && typeof task.taskId === 'string', task.status);
    expect(ctx, `it carries createdAt, lastUpdatedAt, ttl (${String(task.ttl)} ms) and pollInterval (${String(task.pollInterval)} ms)`, Boolean(task.createdAt && task.lastUpdatedAt && task.ttl && task.pollInterval));
    ctx.computeTask = { taskId: task.taskId, pollInterval: task.pollInterval ?? 1000, progress };
    ctx.term.command('curl', ctx.curl.request('tools/call', { ...params, _meta: { progressToken: 'curl-1' } }));
}

/** Step 4: poll tasks/get at pollInterval while progress arrives, then fetch the result. */
export async function pollStep(ctx: DemoContext): Promise<void> {
    const session = connected(ctx);
    const { client } = session;
    const watched = ctx.computeTask;
    if (!watched) {
        throw new Error('no task to watch (step 3 failed)');
    }
    const final = await pollUntilTerminal(ctx, watched.taskId, watched.pollInterval);
    expect(ctx, 'tasks/get reached completed', final.status === 'completed', final.status);
    expect(ctx, `progress notifications arrived with the call's progressToken (${watched.progress.join(', ')})`, watched.progress.length >= 1, watched.progress);
    const result = await client.experimental.tasks.getTaskResult(watched.taskId, CallToolResultSchema);
    expect(ctx, 'tasks/result returns the tool result, structuredContent.result = 42', (result.structuredContent as { result?: number } | undefined)?.result === 42, result.structuredContent);
    const related = (result._meta?.[RELATED_TASK] as { taskId?: string } | undefined)?.taskId;
    expect(ctx, 'the result carries related-task _meta naming the task', related === watched.taskId, result._meta);
    const notified = await waitFor(() => (session.statusesOf(watched.taskId).includes('completed') ? true : undefined), 5000);
    expect(ctx, 'a notifications/tasks/status said completed too', notified === true, session.statusesOf(watched.taskId));
    ctx.term.command('curl (poll)', ctx.curl.request('tasks/get', { taskId: watched.taskId }));
    ctx.term.command('curl (result; blocks until the task is terminal)', ctx.curl.request('tasks/result', { taskId: watched.taskId }));
}

/** Step 5: a required-task tool refuses a plain call (-32601); as a task it ends failed. */
export async function failingStep(ctx: DemoContext): Promise<void> {
    const { client } = connected(ctx);
    // client.request, not client.callTool: the SDK would refuse locally before anything went over the wire.
    const code = await client.request({ method: 'tools/call', params: { name: 'failing_job', arguments: {} } }, CallToolResultSchema).then(
        () => undefined,
        (err: unknown) => (err instanceof McpError ? err.code : String(err)),
    );
    expect(ctx, 'without a task the server answers JSON-RPC error -32601 (the tool requires a task)', code === -32601, code);

    const { task } = await client.request({ method: 'tools/call', params: { name: 'failing_job', arguments: {}, task: {} } }, CreateTaskResultSchema);
    const final = await pollUntilTerminal(ctx, task.taskId, task.pollInterval ?? 1000);
    expect(ctx, `as a task it ends failed with a diagnostic statusMessage`, final.status === 'failed' && /Job failed/.test(final.statusMessage ?? ''), final);
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(ctx, 'tasks/result still returns the isError result', result.isError === true, toolResultText(result));
    ctx.term.command('curl (no task → -32601)', ctx.curl.request('tools/call', { name: 'failing_job', arguments: {} }));
    ctx.term.command('curl (as a task)', ctx.curl.request('tools/call', { name: 'failing_job', arguments: {}, task: {} }));
}

/** Step 6: tasks/cancel stops the work itself: the server logs it and progress stops. */
export async function cancelStep(ctx: DemoContext): Promise<void> {
    const { client } = connected(ctx);
    const progress: number[] = [];
    const label = 'long-job';
    const { task } = await client.request(
        { method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 30, label }, task: {} } },
        CreateTaskResultSchema,
        { onprogress: p => progress.push(p.progress) },
    );
    expect(ctx, 'a 30-second slow_compute is running', (await waitFor(() => (progress.length > 0 ? true : undefined), 10_000)) === true, progress);

    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(ctx, 'tasks/cancel answers with the task, status cancelled', cancelled.status === 'cancelled', cancelled.status);
    const after = await client.experimental.tasks.getTask(task.taskId);
    expect(ctx, 'tasks/get keeps saying cancelled', after.status === 'cancelled', after.status);

    if (ctx.server) {
        const line = await ctx.server.log.waitFor(new RegExp(`\\[slow_compute\\] cancelled "${label}"`), 5000);
        ctx.term.note(`server stderr: ${line ?? '(nothing)'}`);
        expect(ctx, 'the server log shows the computation itself stopped', line !== undefined);
    } else {
        ctx.term.note('(the server log is not visible with --url; look for "[slow_compute] cancelled" in its stderr)');
    }
    const seen = progress.length;
    await sleep(1200);
    expect(ctx, 'no progress arrives after the cancel', progress.length === seen, progress);
    ctx.term.command('curl', ctx.curl.request('tasks/cancel', { taskId: task.taskId }));
}

/** Polls tasks/get at the task's pollInterval until it is terminal, as VS Code does. */
export async function pollUntilTerminal(ctx: DemoContext, taskId: string, intervalMs: number, timeoutMs = 20_000): Promise<GetTaskResult> {
    const { client } = connected(ctx);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        const task = await client.experimental.tasks.getTask(taskId);
        if (TERMINAL.includes(task.status)) {
            return task;
        }
        if (Date.now() > deadline) {
            throw new Error(`task ${taskId} still ${task.status} after ${timeoutMs} ms`);
        }
        await sleep(intervalMs);
    }
}
