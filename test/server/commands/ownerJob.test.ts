/**
 * Owner jobs: a commands-file entry whose task the owner (the editor) runs, as the extension runs
 * VS Code tasks. A real server over HTTP, a real client, and an owner client that declares the
 * capability and answers the ownerJob requests as the extension does.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { Methods, OWNER_JOBS_CAPABILITY, type OwnerJobStart, type OwnerJobStatus } from '@mcp-tasks/server/contract';
import { secret, startHttpServer, textOf, type HttpServer } from '../../support/helpers.js';
import { Feed } from '../../support/wait.js';

const request = (method: string) => z.object({ method: z.literal(method), params: z.record(z.string(), z.unknown()).optional() });

/** Plays the editor: starts jobs when asked, ends them when the test says, cancels on request. */
class FakeEditor {
    readonly client: Client;
    readonly started = new Feed<OwnerJobStart & { ref: string }>();
    readonly cancelled = new Feed<string>();
    private readonly ends = new Map<string, (status: OwnerJobStatus) => void>();
    private readonly endings = new Map<string, Promise<OwnerJobStatus>>();
    private next = 0;

    constructor(kinds: string[]) {
        this.client = new Client({ name: 'fake-editor', version: '1' }, { capabilities: { experimental: { [OWNER_JOBS_CAPABILITY]: { kinds } } } });
        this.client.setRequestHandler(request(Methods.ownerJobStart), ({ params }) => {
            const ref = `job-${++this.next}`;
            this.endings.set(ref, new Promise(resolve => this.ends.set(ref, resolve)));
            this.started.push({ ...(params as unknown as OwnerJobStart), ref });
            return { ref };
        });
        this.client.setRequestHandler(request(Methods.ownerJobStatus), async ({ params }) => {
            const ending = this.endings.get(params!.ref as string)!;
            return (params!.wait ? await ending : await Promise.race([ending, Promise.resolve({ status: 'working' })])) as Record<string, unknown>;
        });
        this.client.setRequestHandler(request(Methods.ownerJobCancel), async ({ params }) => {
            const ref = params!.ref as string;
            this.cancelled.push(ref);
            this.end(ref, { status: 'cancelled', statusMessage: 'terminated' });
            await this.endings.get(ref);
            return {};
        });
    }

    end(ref: string, status: OwnerJobStatus): void {
        this.ends.get(ref)?.(status);
    }
}

async function connectHttp(server: HttpServer, client: Client, token: string): Promise<void> {
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
}

describe('owner jobs (commands file entries the editor runs)', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'owner-job-')));
    const file = join(dir, 'commands.json');
    const token = secret();
    const ownerToken = secret();
    let server: HttpServer;
    const user = new Client({ name: 'copilot', version: '1' });
    const editor = new FakeEditor(['vscode-task']);

    before(async () => {
        writeFileSync(file, JSON.stringify({ tools: [{ name: 'vscode_task_build', description: 'Runs the build task.', ownerJob: { kind: 'vscode-task', key: 'build' } }] }));
        server = await startHttpServer(['--commands', file, '--commands-log-dir', join(dir, 'logs'), '--token', token, '--owner-token', ownerToken]);
        await connectHttp(server, user, token);
    });
    after(async () => {
        await user.close();
        await editor.client.close();
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
    });

    const start = async () => (await user.request({ method: 'tools/call', params: { name: 'vscode_task_build', arguments: {}, task: {} } }, CreateTaskResultSchema)).task.taskId;

    it('is a task-only tool; with no editor that runs such jobs, the task fails saying so', async () => {
        const { tools } = await user.listTools();
        assert.equal(tools.find(tool => tool.name === 'vscode_task_build')?.execution?.taskSupport, 'required');
        const taskId = await start();
        const result = await user.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
        assert.equal(result.isError, true);
        assert.match(textOf(result), /No editor that runs vscode-task jobs is connected/);
    });

    it('the editor starts the job by key; its pushed end completes the task with its result', async () => {
        await connectHttp(server, editor.client, ownerToken);
        const taskId = await start();
        const job = await editor.started.waitFor(j => j.taskId === taskId, `the editor asked to start ${taskId}`);
        assert.deepEqual({ kind: job.kind, key: job.key, taskId: job.taskId }, { kind: 'vscode-task', key: 'build', taskId });
        assert.equal((await user.experimental.tasks.getTask(taskId)).status, 'working');
        editor.end(job.ref, { status: 'completed', result: { content: [{ type: 'text', text: 'build exited with 0' }], structuredContent: { exitCode: 0 } } });
        const result = await user.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
        assert.equal(textOf(result), 'build exited with 0');
        assert.equal((await user.experimental.tasks.getTask(taskId)).status, 'completed');
    });

    it('a failed job fails the task with its message', async () => {
        const taskId = await start();
        const job = await editor.started.waitFor(j => j.taskId === taskId, `the editor asked to start ${taskId}`);
        editor.end(job.ref, { status: 'failed', statusMessage: 'exit 2', result: { content: [{ type: 'text', text: 'build exited with 2' }], isError: true } });
        const result = await user.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
        assert.equal(result.isError, true);
        const task = await user.experimental.tasks.getTask(taskId);
        assert.equal(task.status, 'failed');
        assert.equal(task.statusMessage, 'exit 2');
    });

    it('cancelling the task cancels the job in the editor', async () => {
        const taskId = await start();
        const job = await editor.started.waitFor(j => j.taskId === taskId, `the editor asked to start ${taskId}`);
        await user.experimental.tasks.cancelTask(taskId);
        await editor.cancelled.waitFor(ref => ref === job.ref, `the editor asked to cancel ${job.ref}`);
        assert.equal((await user.experimental.tasks.getTask(taskId)).status, 'cancelled');
    });
});
