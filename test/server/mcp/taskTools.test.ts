/**
 * A client that never sends `task` (the SDK client's plain callTool, as Claude Code, Cursor and
 * Codex behave) runs every tool through the task tools, over stdio and HTTP; the tasks are the
 * same ones tasks/* shows; another client cannot reach them through the task tools.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Fleet, connectAlone } from '../../support/fleet.js';
import { connect, textOf, TRANSPORTS, type Connected, type HttpServer } from '../../support/helpers.js';
import { waitUntil } from '../../support/wait.js';

interface Summary {
    task_id: string;
    tool: string;
    status: string;
    status_message?: string;
    result?: { content: { type: string; text?: string }[]; isError: boolean; structuredContent?: Record<string, unknown> };
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function summaryOf(result: CallToolResult): Summary {
    return result.structuredContent as unknown as Summary;
}

async function start(client: Client, tool: string, args: Record<string, unknown> = {}): Promise<string> {
    const result = await call(client, `start_${tool}`, args);
    assert.notEqual(result.isError, true, textOf(result));
    const summary = summaryOf(result);
    assert.equal(summary.tool, tool);
    assert.match(textOf(result), new RegExp(`get_task with task_id "${summary.task_id}"`));
    return summary.task_id;
}

/** get_task, waiting on the server (20 s a call) until the task has ended. */
async function finish(client: Client, taskId: string): Promise<{ summary: Summary; result: CallToolResult }> {
    for (let i = 0; i < 5; i++) {
        const result = await call(client, 'get_task', { task_id: taskId, wait_seconds: 20 });
        const summary = summaryOf(result);
        if (['completed', 'failed', 'cancelled'].includes(summary.status)) {
            return { summary, result };
        }
    }
    throw new Error(`task ${taskId} did not end`);
}

const TASK_TOOLS = ['slow_compute', 'failing_job', 'confirm_delete', 'write_haiku', 'external_job', 'deploy'];

for (const kind of TRANSPORTS) {
    describe(`task tools for a client that never sends task, over ${kind}`, () => {
        let c: Connected & { server?: HttpServer };
        const elicited: string[] = [];

        before(async () => {
            c = await connectAlone(kind, { capabilities: { elicitation: {}, sampling: {} } });
            c.client.setRequestHandler(ElicitRequestSchema, async request => {
                elicited.push(request.params.message);
                return { action: 'accept', content: { confirm: 'delete' } };
            });
            c.client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'test', content: { type: 'text', text: 'Rain on the roof' } }));
        });
        after(() => c?.close());

        it('lists start_<tool> for every task tool with its schema and annotations, and get/cancel/list, all plain', async () => {
            const { tools } = await c.client.listTools();
            const byName = new Map(tools.map(t => [t.name, t]));
            for (const name of TASK_TOOLS) {
                const tool = byName.get(name)!;
                const starter = byName.get(`start_${name}`);
                assert.ok(starter, `start_${name} is listed`);
                assert.equal(starter.execution?.taskSupport, undefined, 'a start tool is never task-augmented');
                assert.deepEqual(starter.inputSchema, tool.inputSchema);
                // The same confirmation in VS Code: readOnlyHint, destructiveHint, openWorldHint as the tool itself.
                assert.deepEqual({ ...starter.annotations, title: undefined }, { ...tool.annotations, title: undefined });
            }
            assert.equal(byName.get('start_confirm_delete')?.annotations?.destructiveHint, true);
            assert.equal(byName.get('start_greet'), undefined, 'greet cannot run as a task');
            assert.equal(byName.get('start_deploy_step'), undefined, 'hidden tools stay hidden');
            for (const name of ['get_task', 'cancel_task', 'list_tasks']) {
                assert.equal(byName.get(name)?.execution?.taskSupport, undefined, `${name} is plain`);
            }
            assert.equal(byName.get('get_task')?.annotations?.readOnlyHint, true);
            for (const tool of tools) {
                const marked = tool._meta?.['dev.mcp-tasks/task-tool'] === true;
                assert.equal(marked, /^(start_|get_task$|cancel_task$|list_tasks$)/.test(tool.name), `${tool.name}: marked as a task tool in _meta`);
            }
            assert.equal(byName.get('cancel_task')?.annotations?.readOnlyHint, false);
        });

        it('answers a plain call of a required tool with -32601 that names the start tool', async () => {
            // client.request, not callTool: the SDK client refuses required tools locally.
            const err = await c.client.request({ method: 'tools/call', params: { name: 'deploy', arguments: {} } }, CallToolResultSchema).then(
                () => undefined,
                (e: unknown) => e as McpError,
            );
            assert.ok(err instanceof McpError);
            assert.equal(err.code, -32601);
            // The tool to call first, for the model; the protocol's way after, in brackets.
            assert.match(err.message, /^(MCP error -32601: )?Tool deploy runs only as a task\. Call start_deploy with the same arguments instead: .* then call get_task with that task_id .*\(A client that speaks MCP Tasks would send "task": \{\} with the call/);
        });

        it('runs slow_compute in the background: progress in get_task, the result once done, the same task in tasks/list', async () => {
            const taskId = await start(c.client, 'slow_compute', { seconds: 2, label: 'bg' });
            const listed = await c.client.experimental.tasks.listTasks();
            assert.ok(listed.tasks.some(t => t.taskId === taskId), 'tasks/list shows it');
            const progressed = await waitUntil(async () => {
                const summary = summaryOf(await call(c.client, 'get_task', { task_id: taskId }));
                return summary.status_message?.startsWith('bg: ') ? summary : undefined;
            }, 'a progress message in statusMessage');
            assert.match(progressed.status_message!, /^bg: [12]\/2 s$/);
            const { summary, result } = await finish(c.client, taskId);
            assert.equal(summary.status, 'completed');
            assert.match(textOf(result), /Computation "bg" completed after 2 seconds\. Result: 42\./);
            assert.equal(summary.result?.structuredContent?.result, 42);
            assert.equal((await c.client.experimental.tasks.getTask(taskId)).status, 'completed');
        });

        it('runs confirm_delete (answering the elicitation), write_haiku (answering sampling), external_job and deploy', async () => {
            const cases: [string, Record<string, unknown>, RegExp][] = [
                ['confirm_delete', { filename: `bg-${kind}.txt` }, new RegExp(`Confirmed: would delete 'bg-${kind}\\.txt'`)],
                ['write_haiku', { topic: 'rain' }, /Haiku about rain:\nRain on the roof/],
                ['external_job', { job_id: `job-${kind}` }, new RegExp(`External job job-${kind} completed`)],
                ['deploy', { app: `app-${kind}` }, new RegExp(`Deployed app-${kind} in`)],
            ];
            const ids = await Promise.all(cases.map(([tool, args]) => start(c.client, tool, args)));
            const ended = await Promise.all(ids.map(id => finish(c.client, id)));
            cases.forEach(([tool, , expected], i) => {
                assert.equal(ended[i]!.summary.status, 'completed', `${tool}: ${textOf(ended[i]!.result)}`);
                assert.match(textOf(ended[i]!.result), expected);
            });
            assert.ok(elicited.includes(`Delete 'bg-${kind}.txt'? This cannot be undone.`));
        });

        it('reports a failed task as failed with its error result', async () => {
            const { summary, result } = await finish(c.client, await start(c.client, 'failing_job'));
            assert.equal(summary.status, 'failed');
            assert.equal(summary.result?.isError, true);
            assert.notEqual(result.isError, true, 'get_task itself succeeded');
        });

        it('cancels a task with cancel_task; a second cancel and an unknown id are errors the model can read', async () => {
            const taskId = await start(c.client, 'slow_compute', { seconds: 600, label: 'long' });
            const cancelled = await call(c.client, 'cancel_task', { task_id: taskId });
            assert.equal(summaryOf(cancelled).status, 'cancelled');
            assert.equal((await c.client.experimental.tasks.getTask(taskId)).status, 'cancelled');
            const again = await call(c.client, 'cancel_task', { task_id: taskId });
            assert.equal(again.isError, true);
            assert.match(textOf(again), /already cancelled/);
            const unknown = await call(c.client, 'get_task', { task_id: 'nope' });
            assert.equal(unknown.isError, true);
            assert.match(textOf(unknown), /Task not found: nope/);
        });

        it('lists my tasks, optionally by status', async () => {
            const running = await start(c.client, 'slow_compute', { seconds: 600, label: 'listed' });
            const all = (summaryOf(await call(c.client, 'list_tasks')) as unknown as { tasks: Summary[] }).tasks;
            assert.ok(all.some(t => t.task_id === running && t.status === 'working'));
            assert.ok(all.some(t => t.status === 'completed'));
            const working = (summaryOf(await call(c.client, 'list_tasks', { status: 'working' })) as unknown as { tasks: Summary[] }).tasks;
            assert.deepEqual(
                working.map(t => t.task_id),
                [running],
            );
            await call(c.client, 'cancel_task', { task_id: running });
        });

        it('rejects task on a task tool with a protocol error, and bad arguments with a tool error naming the field and the shape', async () => {
            const withTask = await c.client.request({ method: 'tools/call', params: { name: 'get_task', arguments: { task_id: 'x' }, task: {} } }, CallToolResultSchema).catch((e: McpError) => e);
            assert.equal((withTask as McpError).code, -32601);
            // A wait past the limit is cut to it (taskToolTexts.test.ts); a negative one is refused, in words the model can act on.
            const negative = await c.client.request({ method: 'tools/call', params: { name: 'get_task', arguments: { task_id: 'x', wait_seconds: -1 } } }, CallToolResultSchema);
            assert.equal(negative.isError, true);
            assert.match(textOf(negative), /^Invalid arguments for tool get_task: wait_seconds: .*get_task takes \{task_id: string \(required\), wait_seconds: number\}/);
            const missing = await c.client.request({ method: 'tools/call', params: { name: 'start_slow_compute', arguments: { seconds: 'x' } } }, CallToolResultSchema);
            assert.equal(missing.isError, true);
            assert.match(textOf(missing), /^Invalid arguments for tool start_slow_compute: seconds: /);
        });
    });
}

describe('task tools keep tasks isolated between clients (HTTP sessions)', () => {
    const fleet = Fleet.forSuite();
    let alice: Connected;
    let bob: Connected;

    before(async () => {
        [alice, bob] = await fleet.connectAll(await fleet.server(), {}, {});
    });

    it('another client can neither get, cancel nor list your tasks through them', async () => {
        const taskId = await start(alice.client, 'slow_compute', { seconds: 600, label: 'private' });
        for (const [tool, args] of [
            ['get_task', { task_id: taskId }],
            ['cancel_task', { task_id: taskId }],
        ] as const) {
            const result = await call(bob.client, tool, args);
            assert.equal(result.isError, true, tool);
            assert.equal(textOf(result), `Task not found: ${taskId}`, `${tool} answers as for an unknown id`);
        }
        const bobs = (summaryOf(await call(bob.client, 'list_tasks')) as unknown as { tasks: Summary[] }).tasks;
        assert.deepEqual(bobs, []);
        assert.equal(summaryOf(await call(alice.client, 'get_task', { task_id: taskId })).status, 'working', 'still running for its owner');
        await call(alice.client, 'cancel_task', { task_id: taskId });
    });
});

describe('--no-task-tools', () => {
    it('offers no task tools and says only "task": {} in the -32601', async () => {
        const fleet = new Fleet();
        try {
            const server = await fleet.server(['--no-task-tools']);
            const c = await connect('http', server);
            const { tools } = await c.client.listTools();
            assert.deepEqual(
                tools.filter(t => /^(start_|get_task|cancel_task|list_tasks)/.test(t.name)).map(t => t.name),
                [],
            );
            const err = (await c.client.request({ method: 'tools/call', params: { name: 'deploy', arguments: {} } }, CallToolResultSchema).catch((e: McpError) => e)) as McpError;
            assert.equal(err.code, -32601);
            assert.doesNotMatch(err.message, /start_/);
            await c.close();
        } finally {
            await fleet.close();
        }
    });
});
