/** The embedder's server: its name, instructions and tools, and what the library sends without them. */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { z } from 'zod';
// Through the package name, as an embedder writes it (in the repo, tsconfig maps it to the sources).
import { connectStdio, createTasksServer, defineTool, SERVER_VERSION, silentLogger, textResult, type TasksServerOptions } from '@mcp-tasks/server';

/** Starts a server on in-memory streams and returns its answers to initialize and tools/list. */
async function introduce(options: TasksServerOptions): Promise<{ init: Record<string, unknown>; tools: string[] }> {
    const core = createTasksServer({ logger: silentLogger, ...options });
    const input = new PassThrough();
    const output = new PassThrough();
    const { closed } = connectStdio(core, { input, output });
    const lines = createInterface({ input: output })[Symbol.asyncIterator]();
    const request = async (id: number, method: string, params: Record<string, unknown> = {}) => {
        input.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
        const { value } = await lines.next();
        const message = JSON.parse(value as string) as { id: number; result: Record<string, unknown> };
        assert.equal(message.id, id);
        return message.result;
    };
    try {
        const init = await request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } });
        input.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
        const listed = (await request(2, 'tools/list')) as { tools: { name: string }[] };
        return { init, tools: listed.tools.map(tool => tool.name) };
    } finally {
        input.end();
        await closed;
        await core.close();
    }
}

const ping = defineTool({
    name: 'ping',
    title: 'Ping',
    description: 'Answers pong.',
    inputSchema: z.object({}),
    taskSupport: 'optional',
    run: async () => textResult('pong'),
});

describe('server options', () => {
    it('the embedder names the server, gives its instructions and chooses every tool', async () => {
        const serverInfo = { name: 'acme-jobs', title: 'ACME Jobs', version: '3.1.4', websiteUrl: 'https://acme.example/jobs' };
        const { init, tools } = await introduce({ serverInfo, instructions: 'Use ping to check the line.', tools: [ping] });
        assert.deepEqual(init.serverInfo, serverInfo);
        assert.equal(init.instructions, 'Use ping to check the line.');
        assert.deepEqual(tools, ['ping']);
    });

    it('without options the library names itself, gives no instructions and serves no demo tool', async () => {
        const { init, tools } = await introduce({});
        assert.deepEqual(init.serverInfo, { name: 'mcp-tasks-server', version: SERVER_VERSION });
        assert.ok(!('instructions' in init), 'an absent optional field is left out, not sent empty');
        assert.deepEqual(tools, []);
    });
});
