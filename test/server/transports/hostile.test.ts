/**
 * Defects an adversarial pass found (issue 18), each against a real server process: forged log
 * lines, sessions issued by a failed initialize, requests served before initialize, a bind address
 * the Host check refused, and request ids reused while in flight.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { httpServerPerSuite } from '../../support/helpers.js';
import { waitUntil } from '../../support/wait.js';
import { StdioLines } from '../../support/lightRpc.js';
import { exchange, INITIALIZE, RawHttp } from '../../support/rawHttp.js';

describe('log lines cannot be forged', () => {
    it('escapes a newline and an ESC from a slow_compute label in every log line', async () => {
        const stdio = StdioLines.start(['--log-level', 'debug']);
        try {
            await stdio.initialize();
            const label = 'evil\n2026-01-01T00:00:00.000Z ERROR FORGED line\u001b[31m';
            const created = await stdio.call(1, 'tools/call', { name: 'slow_compute', arguments: { seconds: 30, label }, task: {} });
            const taskId = (created.result!.task as { taskId: string }).taskId;
            await stdio.call(2, 'tasks/cancel', { taskId });
            await stdio.log.waitFor(/\[slow_compute\] cancelled/);
            assert.ok(!stdio.log.lines.some(line => line.includes('FORGED') && !line.includes('[slow_compute]')), 'no line of its own for the label');
            assert.ok(!stdio.log.lines.some(line => line.includes('\u001b')), 'no raw ESC in the log');
            assert.ok(stdio.log.lines.some(line => line.includes('cancelled "evil\\n2026-01-01T00:00:00.000Z ERROR FORGED line\\u001b[31m"')), stdio.log.lines.join('\n'));
        } finally {
            stdio.kill();
        }
    });
});

describe('progress tokens', () => {
    it('are refused with -32602 beyond 256 UTF-8 bytes, inline or as a task, and accepted up to it', async () => {
        const stdio = StdioLines.start();
        try {
            await stdio.initialize();
            const call = (id: number, progressToken: unknown, task: boolean) =>
                stdio.call(id, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 }, _meta: { progressToken }, ...(task ? { task: {} } : {}) });
            for (const [i, token] of ['x'.repeat(257), '€'.repeat(86), 'x'.repeat(1024 * 1024)].entries()) {
                for (const task of [true, false]) {
                    const refused = await call(10 * i + (task ? 1 : 2), token, task);
                    assert.equal(refused.error?.code, -32602, `${token.length} characters, task ${task}`);
                    assert.match(refused.error!.message, /progressToken must be at most 256 bytes/);
                }
            }
            assert.ok((await call(100, 'x'.repeat(256), true)).result?.task);
            assert.ok((await call(101, '€'.repeat(85), false)).result?.content);
        } finally {
            stdio.kill();
        }
    });
});

describe('no session before a successful initialize', () => {
    const server = httpServerPerSuite();

    it('issues no Mcp-Session-Id for a failed initialize, and refuses tools/list without a session', async () => {
        const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
        const failed = await exchange(server.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }) });
        assert.equal(failed.status, 200);
        assert.equal((JSON.parse(failed.body) as { error: { code: number } }).error.code, -32602);
        assert.equal(failed.headers['mcp-session-id'], undefined, 'a failed initialize names no session');
        const list = await exchange(server.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
        assert.equal(list.status, 400);
        const ok = await exchange(server.url, { headers, body: JSON.stringify(INITIALIZE) });
        assert.equal(typeof ok.headers['mcp-session-id'], 'string');
    });

    it('over stdio answers only ping before initialize', async () => {
        const stdio = StdioLines.start();
        try {
            assert.deepEqual((await stdio.call(1, 'ping')).result, {});
            const early = await stdio.call(2, 'tools/list');
            assert.equal(early.error?.code, -32600);
            assert.match(early.error!.message, /initialize/);
            const task = await stdio.call(3, 'tools/call', { name: 'slow_compute', arguments: { seconds: 30 }, task: {} });
            assert.equal(task.error?.code, -32600, 'no task runs before initialize');
            await stdio.initialize();
            assert.ok(Array.isArray((await stdio.call(4, 'tools/list')).result?.tools));
        } finally {
            stdio.kill();
        }
    });
});

describe('--host 127.0.0.2', () => {
    const server = httpServerPerSuite(['--host', '127.0.0.2']);

    it('serves requests to its own URL and still refuses other Hosts', async () => {
        assert.match(server.url, /^http:\/\/127\.0\.0\.2:\d+\/mcp$/);
        const client = new RawHttp(server.url);
        await client.initialize();
        assert.deepEqual(await client.result('ping'), {});
        await client.close();
        const headers = { 'content-type': 'application/json', accept: 'application/json' };
        for (const host of [`127.0.0.3:${server.port}`, `evil.example:${server.port}`, `127.0.0.2:${server.port + 1}`]) {
            const res = await exchange(server.url, { headers: { ...headers, host }, body: JSON.stringify(INITIALIZE) });
            assert.equal(res.status, 403, host);
        }
    });
});

describe('request ids reused while in flight', () => {
    const server = httpServerPerSuite(['--session-idle-timeout', '1s', '--log-level', 'debug']);

    it('over stdio answers the duplicate with an error and leaves the first request alone', async () => {
        const stdio = StdioLines.start(['--log-level', 'debug']);
        try {
            await stdio.initialize();
            const created = await stdio.call(1, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1 }, task: {} });
            const taskId = (created.result!.task as { taskId: string }).taskId;
            stdio.write({ jsonrpc: '2.0', id: 7, method: 'tasks/result', params: { taskId } });
            const duplicate = await stdio.call(7, 'ping');
            assert.equal(duplicate.error?.code, -32600);
            assert.match(duplicate.error!.message, /already in flight/);
            const result = await stdio.next(10_000);
            assert.equal(result.id, 7);
            assert.match(JSON.stringify(result.result), /completed after 1 seconds/);
        } finally {
            stdio.kill();
        }
    });

    it('over HTTP a ping with the id of a waiting tasks/result neither answers for it nor makes the session idle', { timeout: 30_000 }, async () => {
        const client = new RawHttp(server.url);
        await client.initialize();
        const taskId = (await client.createTask({ seconds: 3, label: 'kept' })).taskId;
        const waiting = client.send({ jsonrpc: '2.0', id: 42, method: 'tasks/result', params: { taskId } });
        await waitUntil(async () => (await client.send({ jsonrpc: '2.0', id: 42, method: 'ping' })).messages[0]?.error?.code === -32600, 'the duplicate ping to be refused', { timeoutMs: 5000 });
        const reply = await waiting;
        assert.equal(reply.status, 200);
        assert.match(JSON.stringify(reply.messages.find(m => m.id === 42)?.result), /completed after 3 seconds/, 'the task was not cancelled by an idle sweep');
        await client.close();
    });

    it("over HTTP refuses the same id on a second connection, and a cut connection aborts only its own request", { timeout: 30_000 }, async () => {
        const client = new RawHttp(server.url);
        await client.initialize();
        const taskId = (await client.createTask({ seconds: 1, label: 'other' })).taskId;
        // The first tasks/result with id 9 on a connection of its own, cut once the second is answered.
        const first = new RawHttp(server.url);
        first.sessionId = client.sessionId;
        const cut = first.send({ jsonrpc: '2.0', id: 9, method: 'tasks/result', params: { taskId } }).catch(() => undefined);
        await server.log.waitFor(new RegExp(`tasks/result for ${taskId} waiting`));
        const second = await client.send({ jsonrpc: '2.0', id: 9, method: 'tasks/result', params: { taskId } });
        assert.equal(second.messages.find(m => m.id === 9)?.error?.code, -32600, `the duplicate is refused, not left to be aborted by the other connection: ${second.body}`);
        first.destroy();
        await cut;
        await server.log.waitFor(new RegExp(`tasks/result for ${taskId} released`));
        // The cut request freed its id: the same id is served again, and gets the result.
        const again = await client.send({ jsonrpc: '2.0', id: 9, method: 'tasks/result', params: { taskId } });
        assert.match(JSON.stringify(again.messages.find(m => m.id === 9)?.result), /completed after 1 seconds/);
        await client.close();
    });
});
