import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { DirectRequests } from '../../../../server/src/gateway/directRequests.js';

// The gateway's lean path for plain calls, against a real SDK server and client on linked
// in-memory transports: its responses never reach the Client, the Client's own requests still
// do, and errors, stops and a closed connection end a call as the Client's request would.

async function connected() {
    const server = new McpServer({ name: 'downstream', version: '1' });
    const seen: { cancelled: string[] } = { cancelled: [] };
    server.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }));
    server.registerTool('wait', { inputSchema: {} }, (_args, extra) => new Promise(resolve => extra.signal.addEventListener('abort', () => (seen.cancelled.push(String(extra.requestId)), resolve({ content: [] })))));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'gateway', version: '1' });
    await client.connect(clientSide);
    const toClient: unknown[] = [];
    const sdkHandler = clientSide.onmessage!;
    clientSide.onmessage = (message, extra) => {
        toClient.push(message);
        sdkHandler(message, extra);
    };
    return { client, server, direct: new DirectRequests(clientSide), toClient, seen, clientSide };
}

/** A call nobody stops. */
const never = new AbortController().signal;

describe('DirectRequests', () => {
    it('answers a call itself; the Client sees none of its responses and its own requests still work', async () => {
        const { client, direct, toClient } = await connected();
        const result = await direct.request('tools/call', { name: 'echo', arguments: { message: 'hi' } }, never);
        assert.deepEqual(result.content, [{ type: 'text', text: 'Echo: hi' }]);
        assert.equal(toClient.length, 0);
        const listed = await client.listTools();
        assert.deepEqual(
            listed.tools.map(tool => tool.name),
            ['echo', 'wait'],
        );
        assert.equal(toClient.length, 1);
        await client.close();
    });

    it('rejects with the downstream error as an McpError with its code', async () => {
        const { client, direct } = await connected();
        await assert.rejects(direct.request('prompts/get', { name: 'none' }, never), (err: unknown) => err instanceof McpError && err.code === ErrorCode.MethodNotFound);
        await client.close();
    });

    it('a stop rejects with its reason at once and tells the downstream', async () => {
        const { client, direct, seen } = await connected();
        const stop = new AbortController();
        const call = direct.request('tools/call', { name: 'wait', arguments: {} }, stop.signal);
        await new Promise(resolve => setTimeout(resolve, 10));
        const reason = new Error('cancelled by the host');
        stop.abort(reason);
        await assert.rejects(call, err => err === reason);
        for (let i = 0; i < 50 && seen.cancelled.length === 0; i++) {
            await new Promise(resolve => setTimeout(resolve, 10));
        }
        assert.deepEqual(seen.cancelled, ['gateway-call-1']);
        await client.close();
    });

    it('a closed connection fails the waiting calls and later ones with ConnectionClosed', async () => {
        const { client, direct } = await connected();
        const call = direct.request('tools/call', { name: 'wait', arguments: {} }, never);
        await client.close();
        const closed = (err: unknown) => err instanceof McpError && err.code === ErrorCode.ConnectionClosed;
        await assert.rejects(call, closed);
        await assert.rejects(direct.request('tools/call', { name: 'echo', arguments: { message: 'late' } }, never), closed);
    });
});
