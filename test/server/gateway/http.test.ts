import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { textOf } from '../../support/helpers.js';
import { pollUntilTerminal } from '../../support/messageTap.js';
import { EVERYTHING, everythingOverHttp, httpGateway, MEMORY, stdioGateway, v2TaskSession, type Gateway, type HttpGateway } from './gatewayHelpers.js';

// Both fronts and both kinds of downstream: the gateway on HTTP in front of server-everything
// serving Streamable HTTP (each its own process), driven by the SDK's 2025-11-25 client and by the
// official 2026-07-28 Tasks client (@modelcontextprotocol/client + ext-tasks); and a config file of
// several servers from npm, whose colliding names get their server's prefix.

type Json = Record<string, unknown>;

describe('the gateway on HTTP in front of an HTTP downstream', { timeout: 120_000 }, () => {
    let downstream: Awaited<ReturnType<typeof everythingOverHttp>>;
    let gateway: HttpGateway;
    let client: Client;
    const progress: Json[] = [];

    before(async () => {
        downstream = await everythingOverHttp();
        gateway = await httpGateway(['--wrap-url', downstream.url, '--wrap-header', 'X-Gateway-Test: 1']);
        client = await gateway.connect({ elicitation: { form: {} } });
        client.setNotificationHandler(ProgressNotificationSchema, notification => void progress.push(notification.params));
        client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
    });

    after(async () => {
        await gateway?.stop();
        await downstream?.stop();
    });

    it('serves the HTTP downstream tools, plain and as tasks with progress (2025-11-25 client)', async () => {
        assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'over http' } })), 'Echo: over http');
        const { task } = await client.request(
            { method: 'tools/call', params: { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 }, task: {}, _meta: { progressToken: 'http-long' } } },
            CreateTaskResultSchema,
        );
        assert.equal(await pollUntilTerminal(client, task.taskId), 'completed');
        assert.match(textOf(await client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema)), /Long running operation completed/);
        assert.ok(progress.some(p => p.progressToken === 'http-long'));
    });

    it('routes the HTTP downstream question to the host', async () => {
        assert.match(textOf(await client.callTool({ name: 'trigger-elicitation-request', arguments: {} })), /User declined/);
    });

    it('cancels an HTTP downstream call: the task is cancelled at once', async () => {
        const { task } = await client.request({ method: 'tools/call', params: { name: 'trigger-long-running-operation', arguments: { duration: 60, steps: 60 }, task: {} } }, CreateTaskResultSchema);
        assert.equal((await client.experimental.tasks.cancelTask(task.taskId)).status, 'cancelled');
        assert.equal((await client.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
    });

    it('serves a 2026-07-28 client through the official Tasks client: a wrapped call settles as a task, its question answered through tasks/update', async () => {
        const v2 = await v2TaskSession(gateway.url, () => ({ action: 'decline' }));
        try {
            assert.equal(v2.client.getProtocolEra(), 'modern');
            const call = await v2.session.callTool('trigger-long-running-operation', { duration: 0.2, steps: 2 }, { task: { preference: 'require' } });
            assert.equal(call.kind, 'task');
            const { outcome } = await call.settle();
            assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
            assert.match(textOf(v2.resultOf(outcome)), /Long running operation completed/);
            // The downstream's question becomes the task's inputRequests, answered with tasks/update.
            const asked = await (await v2.session.callTool('trigger-elicitation-request', {}, { task: { preference: 'require' } })).settle();
            assert.equal(asked.outcome.status, 'completed', JSON.stringify(asked.outcome));
            assert.match(textOf(v2.resultOf(asked.outcome)), /User declined/);
        } finally {
            await v2.close();
        }
    });
});

describe('the gateway wrapping several servers from a config file', { timeout: 120_000 }, () => {
    let gateway: Gateway;
    let dir: string;

    before(async () => {
        dir = mkdtempSync(join(tmpdir(), 'gateway-config-'));
        const file = join(dir, 'mcp.json');
        const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
        writeFileSync(file, JSON.stringify({ mcpServers: { one: { ...everything, sync: ['echo'] }, two: everything, memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } } } }));
        gateway = await stdioGateway(['--wrap-config', file]);
    });

    after(async () => {
        await gateway?.close();
        rmSync(dir, { recursive: true, force: true });
    });

    it('prefixes the names two servers share, keeps unique ones, and follows each sync list', async () => {
        const { tools } = await gateway.client.listTools();
        const byName = new Map(tools.map(tool => [tool.name, tool]));
        assert.ok(byName.has('one_echo') && byName.has('two_echo') && !byName.has('echo'), [...byName.keys()].join(', '));
        assert.equal(byName.get('one_echo')?.execution, undefined, 'one_echo is in its server sync list: plain');
        assert.equal(byName.get('two_echo')?.execution?.taskSupport, 'optional');
        assert.ok(byName.has('create_entities') && byName.has('read_graph'), 'the memory server tools keep their names');
        assert.equal(textOf(await gateway.client.callTool({ name: 'two_echo', arguments: { message: 'second' } })), 'Echo: second');
    });

    it('runs the memory server tools as tasks and plain', async () => {
        const { task } = await gateway.client.request(
            { method: 'tools/call', params: { name: 'create_entities', arguments: { entities: [{ name: 'Gateway', entityType: 'component', observations: ['wraps servers'] }] }, task: {} } },
            CreateTaskResultSchema,
        );
        assert.equal(await pollUntilTerminal(gateway.client, task.taskId), 'completed');
        const graph = await gateway.client.callTool({ name: 'read_graph', arguments: {} });
        assert.match(JSON.stringify(graph), /wraps servers/);
    });
});
