import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { DirectRequests, toolCallLine, type DirectProgress } from '../../../../server/src/gateway/directRequests.js';
import { Feed, promisesDrained } from '../../../support/wait.js';

// The gateway's lean path for plain calls, against a real SDK server and client on linked
// in-memory transports: its responses and progress never reach the Client, the Client's own
// requests still do, and errors, stops and a closed connection end a call as the Client's request
// would. A hand-driven downstream sends what a real one should not (malformed frames).

async function connected() {
    const server = new McpServer({ name: 'downstream', version: '1' });
    const cancelled = new Feed<string>();
    const started = new Feed<string>();
    server.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }));
    server.registerTool('wait', { inputSchema: {} }, (_args, extra) => {
        started.push(String(extra.requestId));
        return new Promise(resolve => extra.signal.addEventListener('abort', () => (cancelled.push(String(extra.requestId)), resolve({ content: [] }))));
    });
    server.registerTool('count', { inputSchema: {} }, async (_args, extra) => {
        const progressToken = extra._meta?.progressToken;
        for (let step = 1; step <= 2 && progressToken !== undefined; step++) {
            await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: step, total: 2, message: `step ${step}` } });
        }
        return { content: [{ type: 'text', text: String(progressToken) }] };
    });
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
    return { client, server, direct: new DirectRequests(clientSide), toClient, cancelled, started };
}

/** A downstream the test plays itself: what DirectRequests sends arrives in `sent`; `send` answers anything. */
async function handDriven() {
    const [clientSide, downstreamSide] = InMemoryTransport.createLinkedPair();
    const sent = new Feed<JSONRPCMessage>();
    const toClient: JSONRPCMessage[] = [];
    clientSide.onmessage = message => void toClient.push(message);
    downstreamSide.onmessage = message => sent.push(message);
    await clientSide.start();
    await downstreamSide.start();
    return { direct: new DirectRequests(clientSide), sent, toClient, send: (message: unknown) => downstreamSide.send(message as JSONRPCMessage) };
}

describe('DirectRequests', () => {
    it('answers a call itself; the Client sees none of its responses and its own requests still work', async () => {
        const { client, direct, toClient } = await connected();
        const result = await direct.start('tools/call', { name: 'echo', arguments: { message: 'hi' } }).result;
        assert.deepEqual(result.content, [{ type: 'text', text: 'Echo: hi' }]);
        assert.equal(toClient.length, 0);
        const listed = await client.listTools();
        assert.deepEqual(
            listed.tools.map(tool => tool.name),
            ['echo', 'wait', 'count'],
        );
        assert.equal(toClient.length, 1);
        await client.close();
    });

    it('rejects with the downstream error as an McpError with its code', async () => {
        const { client, direct } = await connected();
        await assert.rejects(direct.start('prompts/get', { name: 'none' }).result, (err: unknown) => err instanceof McpError && err.code === ErrorCode.MethodNotFound);
        await client.close();
    });

    it('a cancel rejects with its reason at once and tells the downstream', async () => {
        const { client, direct, cancelled, started } = await connected();
        const call = direct.start('tools/call', { name: 'wait', arguments: {} });
        await started.until(items => items.length === 1, 'the downstream to start the call');
        const reason = new Error('cancelled by the host');
        call.cancel(reason);
        await assert.rejects(call.result, err => err === reason);
        await cancelled.until(items => items.length === 1, 'the downstream to hear the cancel');
        assert.deepEqual(cancelled.items, [call.id]);
        // A second cancel sends nothing more.
        call.cancel(reason);
        await promisesDrained();
        assert.equal(cancelled.items.length, 1);
        await client.close();
    });

    it('a closed connection fails the waiting calls and later ones with ConnectionClosed', async () => {
        const { client, direct } = await connected();
        const call = direct.start('tools/call', { name: 'wait', arguments: {} });
        await client.close();
        const closed = (err: unknown) => err instanceof McpError && err.code === ErrorCode.ConnectionClosed;
        await assert.rejects(call.result, closed);
        await assert.rejects(direct.start('tools/call', { name: 'echo', arguments: { message: 'late' } }).result, closed);
    });

    it("asks for progress with the call's own id as token and passes each update on, none to the Client", async () => {
        const { client, direct, toClient } = await connected();
        const updates: DirectProgress[] = [];
        const call = direct.start('tools/call', { name: 'count', arguments: {} }, update => updates.push(update));
        const result = await call.result;
        assert.deepEqual(result.content, [{ type: 'text', text: call.id }]);
        assert.deepEqual(updates, [
            { progress: 1, total: 2, message: 'step 1' },
            { progress: 2, total: 2, message: 'step 2' },
        ]);
        assert.equal(toClient.length, 0);
        // Without a listener, no token is asked for.
        assert.deepEqual((await direct.start('tools/call', { name: 'count', arguments: {} }).result).content, [{ type: 'text', text: 'undefined' }]);
        await client.close();
    });

    it('callTool asks for progress as start does, on a transport that takes only objects too', async () => {
        const { client, direct, toClient } = await connected();
        const updates: DirectProgress[] = [];
        const call = direct.callTool('count', {}, update => updates.push(update));
        assert.deepEqual((await call.result).content, [{ type: 'text', text: call.id }]);
        assert.equal(updates.length, 2);
        assert.equal(toClient.length, 0);
        await client.close();
    });

    it('asks for no progress when given no listener: the request carries no progress token', async () => {
        const { client, direct } = await connected();
        const call = direct.callTool('count', {}, undefined);
        assert.deepEqual((await call.result).content, [{ type: 'text', text: 'undefined' }]);
        await client.close();
    });

    it("writes a tools/call line exactly as JSON.stringify writes the request it stands for", () => {
        const id = 'gateway-call-42';
        for (const [name, args] of [
            ['echo', { message: 'hello' }],
            ['say "hi"\\ \u2028 é', { nested: { list: [1, 'two', null, { deep: true }] }, quote: '"', newline: '\n' }],
            ['empty', {}],
        ] as const) {
            assert.equal(toolCallLine(id, name, args, true), JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: { progressToken: id } } }));
            assert.equal(toolCallLine(id, name, args, false), JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }));
        }
    });

    it('keeps hundreds of calls waiting at once apart, answered in any order', async () => {
        const { direct, sent, send, toClient } = await handDriven();
        const calls = Array.from({ length: 300 }, (_, i) => direct.start('tools/call', { name: 'n', arguments: { i } }));
        await sent.until(items => items.length === 300, 'the 300 requests');
        // Answered from the last to the first: a table sized for fewer calls must not mix them up.
        for (const message of [...sent.items].reverse()) {
            const { id, params } = message as unknown as { id: string; params: { arguments: { i: number } } };
            await send({ jsonrpc: '2.0', id, result: { i: params.arguments.i } });
        }
        const results = await Promise.all(calls.map(call => call.result));
        assert.deepEqual(
            results.map(result => result.i),
            calls.map((_, i) => i),
        );
        // Each is answered once: a repeated answer is no longer ours and goes on to the Client.
        await send({ jsonrpc: '2.0', id: calls[0]!.id, result: {} });
        assert.deepEqual(
            toClient.map(message => (message as { id?: unknown }).id),
            [calls[0]!.id],
        );
    });

    it('drops malformed progress and answers that are not objects without throwing, and leaves unknown ids to the Client', async () => {
        const { direct, sent, send, toClient } = await handDriven();
        const updates: DirectProgress[] = [];
        const call = direct.start('tools/call', { name: 'x' }, update => updates.push(update));
        const other = direct.start('tools/call', { name: 'y' });
        const third = direct.start('tools/call', { name: 'z' });
        await sent.until(items => items.length === 3, 'the three requests');
        await send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: call.id, progress: 'half' } });
        await send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: call.id, progress: 1, message: 7 } });
        await send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: call.id, progress: 2 } });
        await send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'someone-else', progress: 3 } });
        await send({ jsonrpc: '2.0', id: 'gateway-call-999', result: {} });
        await send({ jsonrpc: '2.0', id: call.id, error: null });
        await send({ jsonrpc: '2.0', id: other.id, result: [1] });
        await send({ jsonrpc: '2.0', id: third.id, error: { code: 'x', message: 5 } });
        await assert.rejects(call.result, (err: unknown) => err instanceof McpError && err.code === ErrorCode.InternalError);
        await assert.rejects(other.result, /no result object/);
        await assert.rejects(third.result, (err: unknown) => err instanceof McpError && err.code === ErrorCode.InternalError && /Unknown error/.test(err.message));
        await promisesDrained();
        assert.deepEqual(updates, [{ progress: 2, total: undefined, message: undefined }]);
        // What is not ours goes on to the Client: the other token's progress and the unknown id's answer.
        assert.deepEqual(
            toClient.map(message => ('method' in message ? message.method : message.id)),
            ['notifications/progress', 'gateway-call-999'],
        );
    });
});
