/**
 * Idle HTTP sessions (--session-idle-timeout): abandoned sessions are closed and their memory
 * returns; a client that comes back with a dead session id gets 404 and starts again; and what
 * becomes of the tasks that were bound to the dead session.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startHttpServer, type HttpServer } from '../../support/helpers.js';
import { mib, MiB, rssOf, settledRss } from '../../support/lightRpc.js';
import { RawHttp } from '../../support/rawHttp.js';
import { waitUntil } from '../../support/wait.js';

const IDLE = '1s';
const SESSIONS = Number(process.env.IDLE_SESSIONS ?? 2000);

describe('idle HTTP sessions at scale, and the tasks they leave', () => {
    const token = randomBytes(16).toString('hex');
    const ownerToken = randomBytes(16).toString('hex');
    let server: HttpServer;
    let owner: RawHttp;

    before(async () => {
        // Thousands of sessions on one token, left to the idle sweep: the session limits (sessionLimits.test.ts) would close them first.
        const unlimited = ['--max-sessions', String(10 * SESSIONS), '--session-rate', String(1000 * SESSIONS)];
        server = await startHttpServer(['--token', token, '--owner-token', ownerToken, '--session-idle-timeout', IDLE, '--default-ttl', '3s', ...unlimited]);
        owner = new RawHttp(server.url, { authorization: `Bearer ${ownerToken}` });
        await owner.initialize({ name: 'owner' });
        // The owner stays: an open GET stream keeps a session however quiet it is.
        await owner.openStream(() => undefined);
    });
    after(async () => {
        owner.destroy();
        await server.stop();
    });

    /** Opens `count` sessions that send initialize and nothing else, `parallel` at a time. */
    async function abandon(count: number, parallel = 25): Promise<string[]> {
        const agent = new Agent({ keepAlive: true, maxSockets: parallel });
        const ids: string[] = [];
        let next = 0;
        await Promise.all(
            Array.from({ length: parallel }, async () => {
                while (next < count) {
                    next++;
                    const client = new RawHttp(server.url, { authorization: `Bearer ${token}` }, agent);
                    const reply = await client.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'abandoned', version: '1' } } });
                    assert.equal(reply.status, 200);
                    ids.push(String(reply.headers['mcp-session-id']));
                }
            }),
        );
        agent.destroy();
        return ids;
    }

    const closedLines = () => server.log.lines.filter(line => line.includes('closing idle session')).length;

    it(`closes ${SESSIONS} abandoned initialize-only sessions, and RSS returns near its baseline`, { timeout: 120_000 }, async t => {
        const pid = server.proc.pid!;
        // Warm-up with as many sessions, so the baseline is a server whose heap has already grown to
        // hold them (V8 keeps what it grew): a leak shows as growth on top of that.
        const warm = await abandon(SESSIONS);
        await waitUntil(() => closedLines() >= warm.length, 'the warm-up sessions to close', { on: server.log.changes });
        const baseline = await settledRss(pid);

        const before = closedLines();
        const started = Date.now();
        const ids = await abandon(SESSIONS);
        const opened = rssOf(pid);
        assert.equal(new Set(ids).size, SESSIONS, 'every session got its own id');
        await waitUntil(() => closedLines() >= before + SESSIONS, `${SESSIONS} idle sessions to close`, { on: server.log.changes });
        const closedMs = Date.now() - started;
        // The bound is on how far RSS comes back, not how fast: wait for it to get there (a leak never does).
        const final = await waitUntil(
            () => {
                const rss = rssOf(pid);
                return rss - baseline < 32 * MiB ? rss : undefined;
            },
            `RSS to come back near the baseline ${mib(baseline)} (now ${mib(rssOf(pid))})`,
            { everyMs: 250 },
        ).catch(() => rssOf(pid));
        t.diagnostic(`${SESSIONS} sessions opened and closed by the sweep in ${(closedMs / 1000).toFixed(1)} s; RSS baseline ${mib(baseline)}, all open ${mib(opened)}, after ${mib(final)}`);
        for (const id of [ids[0]!, ids[ids.length - 1]!]) {
            assert.ok(server.log.lines.some(line => line.includes(`closing idle session ${id.slice(0, 8)}`)), id);
        }
        assert.ok(final - baseline < 32 * MiB, `RSS ${mib(final)} is not back near ${mib(baseline)}`);
    });

    it('answers a client that comes back with a dead session id with 404 on POST, GET and DELETE, and lets it start again', async () => {
        const client = new RawHttp(server.url, { authorization: `Bearer ${token}` });
        await client.initialize({ name: 'returning' });
        const dead = client.sessionId!;
        await server.log.waitFor(new RegExp(`closing idle session ${dead.slice(0, 8)}`));

        const post = await client.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
        assert.equal(post.status, 404);
        assert.equal(post.messages[0]?.error?.code, -32001);
        assert.match(post.messages[0]!.error!.message, /Session not found: initialize a new session/);
        const stream = await client.openStream(() => undefined);
        assert.equal(stream.status, 404);
        stream.close();
        const del = await client.send(undefined, { method: 'DELETE' });
        assert.equal(del.status, 404);

        client.sessionId = undefined;
        await client.initialize({ name: 'returning' });
        assert.notEqual(client.sessionId, dead);
        assert.deepEqual((await client.call('ping')).result, {});
        await client.close();
    });

    it('cancels the running tasks of a session closed for idleness; its finished ones become unreachable and expire', { timeout: 30_000 }, async () => {
        const client = new RawHttp(server.url, { authorization: `Bearer ${token}` });
        await client.initialize({ name: 'forgetful' });
        const running = ((await client.result('tools/call', { name: 'slow_compute', arguments: { seconds: 60, label: 'idle-running' }, task: {} })).task as { taskId: string }).taskId;
        const finished = ((await client.result('tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'idle-finished' }, task: {} })).task as { taskId: string }).taskId;
        await server.log.waitFor(new RegExp(`closing idle session ${client.sessionId!.slice(0, 8)}`));
        await server.log.waitFor(/\[slow_compute\] cancelled "idle-running"/);

        // The owner sees why the running one ended; the finished one is untouched.
        const seen = await owner.result('tasks/get', { taskId: running });
        assert.equal(seen.status, 'cancelled');
        assert.equal(seen.statusMessage, 'Session closed after being idle');
        assert.deepEqual((await owner.result('tasks/result', { taskId: running })).content, [{ type: 'text', text: 'Task cancelled: Session closed after being idle' }]);
        assert.equal((await owner.result('tasks/get', { taskId: finished })).status, 'completed');

        // The client's new session is a new client: both tasks are as unknown to it as any id.
        client.sessionId = undefined;
        await client.initialize({ name: 'forgetful' });
        for (const taskId of [running, finished]) {
            for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
                const answer = await client.call(method, { taskId });
                assert.equal(answer.error?.code, -32602, method);
                assert.equal(answer.error?.message, `Task not found: ${taskId}`);
            }
        }
        assert.deepEqual((await client.result('tasks/list')).tasks, []);

        // Both expire with their TTL (3 s here, counted again from each one's end), like any task.
        for (const taskId of [finished, running]) {
            await waitUntil(async () => (await owner.call('tasks/get', { taskId })).error?.code === -32602, `${taskId} to expire`);
        }
        await client.close();
    });

    it('keeps a session whose tasks/result is still waiting, however long, then closes it once idle', { timeout: 30_000 }, async () => {
        const client = new RawHttp(server.url, { authorization: `Bearer ${token}` });
        await client.initialize({ name: 'patient' });
        const taskId = ((await client.result('tools/call', { name: 'slow_compute', arguments: { seconds: 2.5, label: 'patient' }, task: {} })).task as { taskId: string }).taskId;
        const result = await client.result('tasks/result', { taskId });
        assert.deepEqual(result.content, [{ type: 'text', text: 'Computation "patient" completed after 2.5 seconds. Result: 42.' }]);
        assert.ok(!server.log.lines.some(line => line.includes(`closing idle session ${client.sessionId!.slice(0, 8)}`)), 'a session waiting in a request is not idle');
        await server.log.waitFor(new RegExp(`closing idle session ${client.sessionId!.slice(0, 8)}`));
        client.destroy();
    });
});
