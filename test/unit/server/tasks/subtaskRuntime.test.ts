import assert from 'node:assert/strict';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { z } from 'zod';
import {
    ChildTaskError,
    connectStdio,
    createLogger,
    createTasksServer,
    defaultTools,
    defineTool,
    join,
    MemoryTaskStore,
    SpawnError,
    textResult,
    type TaskEvent,
    type TasksServer,
    type TasksServerOptions,
} from '../../../../server/src/index.js';
import { ANNOUNCE_GAP_MS } from '../../../../server/src/mcp/rev2025/session.js';
import { ManualClock } from '../../../support/manualClock.js';
import { waitUntil } from '../../../support/wait.js';

type Message = { id?: number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { code: number; message: string } };
type Task = { taskId: string; status: string; statusMessage?: string; _meta?: Record<string, unknown> };
const PARENT = 'dev.mcp-tasks/parent-task-id';

/** A JSON-RPC client on connectStdio over in-memory streams: the whole server in this process. */
class PipeClient {
    readonly messages: Message[] = [];
    private readonly toServer = new PassThrough();
    private readonly fromServer = new PassThrough();
    private readonly answers = new Map<number, (message: Message) => void>();
    private nextId = 1;

    constructor(server: TasksServer) {
        connectStdio(server, { input: this.toServer, output: this.fromServer });
        // MCP lifecycle: nothing but ping is served before initialize (its answer is the first message).
        this.toServer.write(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } }) + '\n');
        createInterface({ input: this.fromServer }).on('line', line => {
            const message = JSON.parse(line) as Message;
            this.messages.push(message);
            if (message.id !== undefined && message.method === undefined) {
                this.answers.get(message.id)?.(message);
            }
        });
    }

    async call(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
        const id = this.nextId++;
        const answered = new Promise<Message>(resolve => this.answers.set(id, resolve));
        this.toServer.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
        const message = await answered;
        if (message.error) {
            throw Object.assign(new Error(message.error.message), { code: message.error.code });
        }
        return message.result!;
    }

    async start(name: string, args: Record<string, unknown> = {}): Promise<string> {
        const { task } = (await this.call('tools/call', { name, arguments: args, task: {} })) as { task: Task };
        return task.taskId;
    }

    async result(taskId: string): Promise<{ text: string; isError?: boolean; structuredContent?: Record<string, unknown> }> {
        const result = (await this.call('tasks/result', { taskId })) as { content: { text: string }[]; isError?: boolean; structuredContent?: Record<string, unknown> };
        return { ...result, text: result.content.map(c => c.text).join('') };
    }

    async get(taskId: string): Promise<Task> {
        return (await this.call('tasks/get', { taskId })) as Task;
    }

    async children(parentId: string): Promise<Task[]> {
        return ((await this.call('tasks/list', { _meta: { [PARENT]: parentId } })) as { tasks: Task[] }).tasks;
    }

    /** Index of the first `notifications/tasks/status` with this task and status, or -1. */
    statusIndex(taskId: string, status: string): number {
        return this.messages.findIndex(m => m.method === 'notifications/tasks/status' && m.params?.taskId === taskId && m.params?.status === status);
    }
}

// Test-only tools, added through the library API.
const noop = defineTool({
    name: 'noop',
    title: 'No-op',
    description: 'Returns at once.',
    inputSchema: z.object({ n: z.number().default(0) }),
    taskSupport: 'required',
    hidden: true,
    async run({ n }) {
        return textResult(`noop ${n}`);
    },
});

/** Spawns itself one level deeper until spawn refuses; `handle` decides whether the refusal is caught. */
const nest = defineTool({
    name: 'nest',
    title: 'Nest',
    description: 'Recursion through sub-tasks.',
    inputSchema: z.object({ level: z.number().default(0), handle: z.boolean().default(true) }),
    taskSupport: 'required',
    async run({ level, handle }, ctx) {
        let child;
        try {
            child = await ctx.spawn('nest', { level: level + 1, handle });
        } catch (err) {
            if (handle && err instanceof SpawnError) {
                return textResult(`level ${level}: ${err.reason}: ${err.message}`);
            }
            throw err;
        }
        return child.wait();
    },
});

/** Starts `count` noop children, stopping at the first refusal, then joins them. */
const fan = defineTool({
    name: 'fan',
    title: 'Fan out',
    description: 'Many children.',
    inputSchema: z.object({ count: z.number() }),
    taskSupport: 'required',
    async run({ count }, ctx) {
        const children = [];
        let refused = 'none';
        for (let i = 0; i < count; i++) {
            try {
                children.push(await ctx.spawn('noop', { n: i }));
            } catch (err) {
                if (!(err instanceof SpawnError)) {
                    throw err;
                }
                refused = `${err.reason}: ${err.message}`;
                break;
            }
        }
        const results = await join(children);
        return { content: [{ type: 'text', text: refused }], structuredContent: { started: children.length, results: results.map(r => (r.content[0] as { text: string }).text) } };
    },
});

/** Tries spawns that must be refused and reports each reason; runs inline too (taskSupport optional). */
const probe = defineTool({
    name: 'probe',
    title: 'Probe',
    description: 'Spawn refusals.',
    inputSchema: z.object({}),
    taskSupport: 'optional',
    async run(_args, ctx) {
        const reasons: string[] = [];
        for (const [name, args] of [
            ['no_such_tool', {}],
            ['greet', { name: 'x' }],
            ['noop', { n: 'not a number' }],
        ] as const) {
            await ctx.spawn(name, args).then(
                () => reasons.push('started'),
                (err: unknown) => reasons.push(err instanceof SpawnError ? `${err.reason}: ${err.message}` : `other: ${String(err)}`),
            );
        }
        return textResult(reasons.join('\n'));
    },
});

/** Waits on failing_job; `handle` catches the ChildTaskError. */
const supervise = defineTool({
    name: 'supervise',
    title: 'Supervise',
    description: 'A parent of a failing child.',
    inputSchema: z.object({ handle: z.boolean() }),
    taskSupport: 'required',
    async run({ handle }, ctx) {
        const child = await ctx.spawn('failing_job');
        try {
            await child.wait();
            return textResult('child completed?');
        } catch (err) {
            if (handle && err instanceof ChildTaskError) {
                return textResult(`handled: ${err.toolName} ${err.taskId} ${err.status}: ${err.statusMessage}`);
            }
            throw err;
        }
    },
});

/** Starts a long child and returns without waiting for it. */
const leaver = defineTool({
    name: 'leaver',
    title: 'Leaver',
    description: 'Leaves a child running.',
    inputSchema: z.object({ label: z.string() }),
    taskSupport: 'required',
    async run({ label }, ctx) {
        const child = await ctx.spawn('slow_compute', { seconds: 30, label });
        return textResult(child.taskId);
    },
});

const TEST_TOOLS = [noop, nest, fan, probe, supervise, leaver];

/** A whole server in this process on a virtual clock: task time moves only on clock.tick(). */
function newServer(options: TasksServerOptions = {}): { server: TasksServer; client: PipeClient; logs: string[]; clock: ManualClock } {
    const logs: string[] = [];
    const clock = (options.clock as ManualClock | undefined) ?? new ManualClock();
    const server = createTasksServer({ tools: [...defaultTools(), ...TEST_TOOLS], logger: createLogger('info', line => logs.push(line)), clock, ...options });
    return { server, client: new PipeClient(server), logs, clock };
}

describe('sub-task limits and errors (library API, in-memory stdio)', () => {
    const { server, client, clock } = newServer();
    after(() => server.close());

    it('nests at most 4 levels below the client’s task, with a clear, catchable refusal', async () => {
        const root = await client.start('nest');
        const { text } = await client.result(root);
        assert.match(text, new RegExp(`^level 4: depth_limit: Cannot start sub-task nest: task \\S+ \\(nest\\) is at depth 4, and sub-tasks may nest at most 4 levels below the task the client started$`));
        // root → 1 → 2 → 3 → 4, each child naming its parent.
        let id = root;
        for (let depth = 1; depth <= 4; depth++) {
            const kids = await client.children(id);
            assert.equal(kids.length, 1, `one child at depth ${depth}`);
            assert.equal(kids[0]!._meta?.[PARENT], id);
            id = kids[0]!.taskId;
        }
        assert.deepEqual(await client.children(id), []);
    });

    it('an uncaught refusal fails that task, and each ancestor fails naming its failed child', async () => {
        const root = await client.start('nest', { handle: false });
        const { isError, text } = await client.result(root);
        assert.equal(isError, true);
        const task = await client.get(root);
        assert.equal(task.status, 'failed');
        const [child] = await client.children(root);
        assert.match(task.statusMessage ?? '', new RegExp(`^Sub-task nest ${child!.taskId} failed: Sub-task nest \\S+ failed: .*Cannot start sub-task nest: .*at most 4 levels`));
        assert.match(text, /^Tool nest failed: Sub-task nest/);
    });

    it('starts at most 16 children per task; the 17th spawn is refused and the 16 join', async () => {
        const root = await client.start('fan', { count: 20 });
        const result = await client.result(root);
        assert.match(result.text, /^children_limit: Cannot start sub-task noop: task \S+ \(fan\) has already started 16 sub-tasks, the most one task may start$/);
        assert.equal(result.structuredContent?.started, 16);
        assert.deepEqual(
            result.structuredContent?.results,
            Array.from({ length: 16 }, (_, i) => `noop ${i}`),
        );
        const kids = await client.children(root);
        assert.equal(kids.length, 16);
        assert.ok(kids.every(k => k.status === 'completed'));
    });

    it('refuses unknown, task-forbidden and badly called tools, and any spawn outside a task', async () => {
        const root = await client.start('probe');
        const { text } = await client.result(root);
        const lines = text.split('\n');
        assert.match(lines[0]!, /^unknown_tool: Cannot start sub-task no_such_tool: no such tool$/);
        assert.match(lines[1]!, /^task_forbidden: Cannot start sub-task greet: the tool cannot run as a task/);
        assert.match(lines[2]!, /^invalid_arguments: Cannot start sub-task noop: Invalid arguments for tool noop: n: /);
        assert.deepEqual(await client.children(root), []);
        const inline = (await client.call('tools/call', { name: 'probe', arguments: {} })) as { content: { text: string }[] };
        const reasons = inline.content[0]!.text.split('\n');
        assert.equal(reasons.length, 3);
        assert.ok(reasons.every(r => /^not_a_task: Cannot start sub-task \S+: only a tool running as a task can start sub-tasks/.test(r)));
    });

    it('honours configured limits', async () => {
        const small = newServer({ maxChildrenPerTask: 2, maxSubtaskDepth: 1 });
        try {
            const fanned = await small.client.result(await small.client.start('fan', { count: 5 }));
            assert.equal(fanned.structuredContent?.started, 2);
            const nested = await small.client.result(await small.client.start('nest'));
            assert.match(nested.text, /^level 1: depth_limit: .*at most 1 levels/);
        } finally {
            await small.server.close();
        }
    });

    it('a failed child fails the parent naming it, unless the parent catches the ChildTaskError', async () => {
        const [uncaught, caught] = await Promise.all([client.start('supervise', { handle: false }), client.start('supervise', { handle: true })]);
        await waitUntil(async () => (await client.children(uncaught)).length + (await client.children(caught)).length === 2, 'both children to start');
        const results = Promise.all([client.result(uncaught), client.result(caught)]);
        // failing_job fails after 1 s of task time.
        await clock.tick(1000);
        const [a, b] = await results;
        const [childA] = await client.children(uncaught);
        const [childB] = await client.children(caught);
        assert.equal(a.isError, true);
        const failed = await client.get(uncaught);
        assert.equal(failed.status, 'failed');
        assert.match(failed.statusMessage ?? '', new RegExp(`^Sub-task failing_job ${childA!.taskId} failed: Job failed: `));
        assert.equal(b.isError, undefined);
        assert.match(b.text, new RegExp(`^handled: failing_job ${childB!.taskId} failed: Job failed: `));
        assert.equal((await client.get(caught)).status, 'completed');
    });
});

describe('sub-task cascade (library API, in-memory stdio)', () => {
    it('a parent that completes with a child still running cancels it first (no orphans)', async () => {
        const { server, client, logs, clock } = newServer();
        try {
            const parent = await client.start('leaver', { label: 'orphan' });
            const { text: childId } = await client.result(parent);
            const child = await client.get(childId);
            assert.equal(child.status, 'cancelled');
            assert.equal(child.statusMessage, `Cancelled because parent task ${parent} (leaver) completed`);
            assert.equal((await client.get(parent)).status, 'completed');
            await waitUntil(() => logs.some(l => l.includes('[slow_compute] cancelled "orphan" at 0/30')), 'the orphan to stop');
            // A task's status notifications follow its CreateTaskResult after ANNOUNCE_GAP_MS; the parent ended within it.
            await clock.tick(ANNOUNCE_GAP_MS);
            await waitUntil(() => client.statusIndex(parent, 'completed') >= 0, 'the parent notification');
            assert.ok(client.statusIndex(childId, 'cancelled') < client.statusIndex(parent, 'completed'));
        } finally {
            await server.close();
        }
    });

    it('cancelling a parent stops its steps and no progress follows', async () => {
        const { server, client, logs, clock } = newServer();
        const progress: string[] = [];
        server.runtime.store.onEvent((event: TaskEvent) => {
            if (event.type === 'progress') {
                progress.push(event.taskId);
            }
        });
        try {
            const parent = await client.start('deploy', { app: 'quiet' });
            await waitUntil(async () => (await client.children(parent)).length === 2, 'both steps to start');
            await clock.tick(1000);
            assert.equal(progress.filter(taskId => taskId !== parent).length, 2, 'both steps reported their first second');
            await client.call('tasks/cancel', { taskId: parent });
            const before = progress.length;
            const kids = await client.children(parent);
            assert.deepEqual(
                kids.map(k => [k.status, k.statusMessage]),
                kids.map(() => ['cancelled', `Cancelled because parent task ${parent} (deploy) was cancelled`]),
            );
            await clock.tick(5000);
            assert.equal(progress.length, before, 'no progress after the cancel');
            assert.ok(logs.some(l => l.includes('[deploy_step] cancelled build for quiet at 1/3')));
            assert.ok(logs.some(l => l.includes('[deploy_step] cancelled test for quiet at 1/2')));
            assert.ok(!logs.some(l => l.includes('[deploy] quiet stopped')), 'the parent did not treat the cascade as a step failure');
        } finally {
            await server.close();
        }
    });

    it('server shutdown cancels children before the parent, each naming it', async () => {
        const { server, client, logs, clock } = newServer();
        const parent = await client.start('deploy', { app: 'shutdown' });
        const kids = await waitUntil(async () => {
            const list = await client.children(parent);
            return list.length === 2 ? list : undefined;
        }, 'two steps');
        await clock.tick(200);
        await server.close('Server shutting down');
        await waitUntil(() => client.statusIndex(parent, 'cancelled') >= 0, 'the notifications');
        const parentAt = client.statusIndex(parent, 'cancelled');
        assert.ok(parentAt >= 0, 'the parent was cancelled');
        assert.equal(client.messages[parentAt]!.params?.statusMessage, 'Server shutting down');
        for (const kid of kids) {
            const at = client.statusIndex(kid.taskId, 'cancelled');
            assert.ok(at >= 0 && at < parentAt, 'child cancelled before the parent');
            assert.equal(client.messages[at]!.params?.statusMessage, `Cancelled because parent task ${parent} (deploy) was cancelled`);
        }
        assert.ok(logs.some(l => l.includes('[deploy_step] cancelled build for shutdown at 0/3')));
        assert.ok(logs.some(l => l.includes('[deploy_step] cancelled test for shutdown at 0/2')));
    });

    it('a cancel handled by another process sharing the store cascades there and stops the work here', async () => {
        const clock = new ManualClock();
        const store = new MemoryTaskStore({ clock });
        const here = newServer({ store, workerId: 'here', clock });
        const elsewhere = createTasksServer({ tools: defaultTools(), store, workerId: 'elsewhere', logger: createLogger('error', () => undefined), clock });
        try {
            const parent = await here.client.start('deploy', { app: 'remote' });
            await waitUntil(async () => (await here.client.children(parent)).length === 2, 'two steps');
            await clock.tick(200);
            // The owner's view from the other replica: it runs none of these tasks.
            const cancelled = await elsewhere.runtime.cancel({ clientKey: 'owner', isOwner: true }, parent);
            assert.equal(cancelled.status, 'cancelled');
            const kids = await here.client.children(parent);
            assert.ok(kids.every(k => k.status === 'cancelled' && k.statusMessage === `Cancelled because parent task ${parent} (deploy) was cancelled`));
            await waitUntil(() => here.logs.filter(l => /\[deploy_step\] cancelled (build|test) for remote at 0\/[23]/.test(l)).length === 2, 'both steps to stop here');
            await clock.tick(5000);
            assert.equal((await here.client.get(parent)).status, 'cancelled', 'the parent ends cancelled, not failed');
            assert.ok(!here.logs.some(l => l.includes('[deploy] remote stopped')));
        } finally {
            await here.server.close();
            await elsewhere.close();
        }
    });
});
