import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { CallToolResultSchema, type McpError } from '@modelcontextprotocol/sdk/types.js';
import { Fleet } from '../../support/fleet.js';
import { connect, secret, textOf, type Connected, type HttpServer } from '../../support/helpers.js';
import { Feed, waitUntil } from '../../support/wait.js';
import { RawHttp } from '../../support/rawHttp.js';
import { parseCli } from '../../../server/src/options.js';
import { runCli } from '../../support/rawHelpers.js';
import { freePort, redisSkipReason, type RedisServer } from '../../support/redisHelpers.js';
import { listAll, rejection, startSlowTask } from '../../support/taskCalls.js';

const skip = redisSkipReason();

describe('two replicas sharing one Redis', { skip }, () => {
    const [t1, t2, t3, owner] = [secret(), secret(), secret(), secret()];
    const prefix = `replicas-${randomUUID()}:`;
    const fleet = Fleet.forSuite();
    let redis: RedisServer;
    let a: HttpServer;
    let b: HttpServer;

    const replica = (name: string) =>
        fleet.server([
            ...['--store', redis.url, '--store-prefix', prefix, '--worker-id', name, '--worker-lease', '1s'],
            ...['--token', t1, '--token', t2, '--token', t3, '--owner-token', owner, '--max-tasks-per-client', '3'],
        ]);
    const client = (server: HttpServer, token: string, name = 'replica-test') => fleet.client(server, { token, name });

    before(async () => {
        redis = await fleet.redis();
        [a, b] = await Promise.all([replica('replica-a'), replica('replica-b')]);
    });

    it('binds tasks to the token: created on A, they are got, listed, awaited and read on B', async () => {
        const onA = await client(a, t1);
        const onB = await client(b, t1);
        const task = await startSlowTask(onA.client, 1, 'shared');
        assert.equal((await onB.client.experimental.tasks.getTask(task.taskId)).status, 'working');
        assert.ok((await listAll(onB.client)).includes(task.taskId));

        // B waits on the store event A publishes when the work ends: no polling.
        const result = await onB.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        assert.equal(textOf(result), 'Computation "shared" completed after 1 seconds. Result: 42.');

        const raw = new RawHttp(b.url, { authorization: `Bearer ${owner}` });
        await raw.initialize();
        const { tasks } = (await raw.call('tasks/list')).result as { tasks: { taskId: string; _meta?: Record<string, { worker?: string }> }[] };
        assert.equal(tasks.find(t => t.taskId === task.taskId)?._meta?.['dev.mcp-tasks/task-info']?.worker, 'replica-a', "the owner's view names the replica that ran it");
    });

    it("cancel on B stops the work on A (A's log shows the abort)", async () => {
        const onA = await client(a, t1);
        const onB = await client(b, t1);
        const task = await startSlowTask(onA.client, 30, 'cross-cancel');
        const cancelled = await onB.client.experimental.tasks.cancelTask(task.taskId);
        assert.equal(cancelled.status, 'cancelled');
        await a.log.waitFor(/\[slow_compute\] cancelled "cross-cancel" at \d+\/30/);
        assert.ok(!b.log.lines.some(line => line.includes('"cross-cancel"')), 'the work ran on A only');
        assert.equal((await onA.client.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
        const again = await rejection(onA.client.experimental.tasks.cancelTask(task.taskId));
        assert.equal(again.code, -32602);
    });

    it("sends status and progress notifications to the client's stream on the other replica", async () => {
        const listener = new RawHttp(b.url, { authorization: `Bearer ${t2}` });
        await listener.initialize();
        const seen = new Feed<Record<string, unknown>>();
        const stream = await listener.openStream(message => seen.push(message));
        try {
            const starter = new RawHttp(a.url, { authorization: `Bearer ${t2}` });
            await starter.initialize();
            const created = await starter.call('tools/call', { name: 'slow_compute', arguments: { seconds: 2, label: 'notify' }, task: {}, _meta: { progressToken: 'tok-7' } });
            const taskId = (created.result as { task: { taskId: string } }).task.taskId;
            await seen.waitFor(m => m.method === 'notifications/tasks/status' && (m.params as { taskId: string; status: string }).taskId === taskId && (m.params as { status: string }).status === 'completed', 'the completed status on B');
            const progress = seen.items.filter(m => m.method === 'notifications/progress').map(m => m.params as { progressToken: string; progress: number; _meta: Record<string, { taskId: string }> });
            assert.ok(progress.length >= 1, JSON.stringify(seen.items));
            assert.ok(progress.every(p => p.progressToken === 'tok-7' && p._meta['io.modelcontextprotocol/related-task']?.taskId === taskId));
        } finally {
            stream.close();
        }
    });

    it('keeps identities apart across replicas: another token gets -32602 and an empty list', async () => {
        const ofT1 = await client(a, t1);
        const ofT3 = await client(b, t3);
        const task = await startSlowTask(ofT1.client, 30, 'private');
        const unknown = 'AAAAAAAAAAAAAAAAAAAAAA';
        for (const run of [
            (id: string) => ofT3.client.experimental.tasks.getTask(id),
            (id: string) => ofT3.client.experimental.tasks.getTaskResult(id, CallToolResultSchema),
            (id: string) => ofT3.client.experimental.tasks.cancelTask(id),
        ]) {
            const foreign = await rejection(run(task.taskId));
            const missing = await rejection(run(unknown));
            assert.equal(foreign.code, -32602);
            assert.equal(foreign.message.replace(task.taskId, '<id>'), missing.message.replace(unknown, '<id>'));
        }
        assert.ok(!(await listAll(ofT3.client)).includes(task.taskId));
        assert.equal((await ofT1.client.experimental.tasks.getTask(task.taskId)).status, 'working');
        await ofT1.client.experimental.tasks.cancelTask(task.taskId);
    });

    it('does not cancel a principal-bound task when its session closes', async () => {
        const first = await connect('http', a, { token: t2 });
        const task = await startSlowTask(first.client, 30, 'outlives-session');
        // The DELETE is answered after the server has ended the session: what it did to the task shows now.
        await first.close();
        const later = await client(b, t2);
        assert.equal((await later.client.experimental.tasks.getTask(task.taskId)).status, 'working');
        assert.ok(!a.log.lines.some(line => line.includes('"outlives-session"')), 'the work was not stopped');
        await later.client.experimental.tasks.cancelTask(task.taskId);
    });

    it('counts live tasks per token across replicas (--max-tasks-per-client 3)', async () => {
        const onA = await client(a, t3);
        const onB = await client(b, t3);
        const tasks = [await startSlowTask(onA.client, 30, 'l1'), await startSlowTask(onB.client, 30, 'l2'), await startSlowTask(onA.client, 30, 'l3')];
        for (const c of [onA, onB]) {
            const refused = await rejection(startSlowTask(c.client, 30, 'l4'));
            assert.equal(refused.code, -32000);
            assert.match(refused.message, /Too many live tasks for this client \(limit 3\)/);
        }
        await onB.client.experimental.tasks.cancelTask(tasks[0]!.taskId);
        const again = await startSlowTask(onA.client, 30, 'l5');
        await Promise.all([tasks[1]!, tasks[2]!, again].map(t => onB.client.experimental.tasks.cancelTask(t.taskId)));
    });

    it('retires tasks through Redis key expiry: gone on every replica', async () => {
        const onA = await client(a, t1);
        const onB = await client(b, t1);
        const task = await startSlowTask(onA.client, 0, 'short-lived', { ttl: 1000 });
        assert.equal(task.ttl, 1000);
        await onB.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        await waitUntil(() => onB.client.experimental.tasks.getTask(task.taskId).then(() => false, (err: McpError) => err.code === -32602), 'expiry');
        assert.equal((await rejection(onA.client.experimental.tasks.getTask(task.taskId))).code, -32602);
        assert.ok(!(await listAll(onA.client)).includes(task.taskId));
        assert.equal(await redis.cli('EXISTS', `${prefix}t:${task.taskId}`), '0');
    });

    it('fails the running tasks of a replica killed with SIGKILL within the lease; finished results survive and a new replica serves them', async () => {
        const onA = await client(a, t1);
        const onB = await client(b, t1);
        const finished = await startSlowTask(onA.client, 0, 'kept');
        await onA.client.experimental.tasks.getTaskResult(finished.taskId, CallToolResultSchema);
        const doomed = await startSlowTask(onA.client, 30, 'doomed');
        const waiting = onB.client.experimental.tasks.getTaskResult(doomed.taskId, CallToolResultSchema);

        await a.stop('SIGKILL');
        const result = await waiting;
        assert.equal(result.isError, true);
        assert.match(textOf(result), /Worker replica-a stopped responding/);
        const failed = await onB.client.experimental.tasks.getTask(doomed.taskId);
        assert.equal(failed.status, 'failed');
        assert.match(failed.statusMessage ?? '', /^Worker replica-a stopped responding \(no heartbeat within its 1000 ms lease\)/);

        const restarted = await replica('replica-a2');
        const onA2 = await client(restarted, t1);
        const kept = await onA2.client.experimental.tasks.getTaskResult(finished.taskId, CallToolResultSchema);
        assert.equal(textOf(kept), 'Computation "kept" completed after 0 seconds. Result: 42.');
        assert.equal((await onA2.client.experimental.tasks.getTask(doomed.taskId)).status, 'failed');
    });
});

describe('two replicas sharing one retention budget per token', { skip }, () => {
    const token = secret();
    const prefix = `budget-${randomUUID()}:`;
    const fleet = Fleet.forSuite();
    let a: HttpServer;
    let b: HttpServer;

    before(async () => {
        const { url } = await fleet.redis();
        const replica = (name: string) =>
            fleet.server([...['--store', url, '--store-prefix', prefix, '--worker-id', name], ...['--token', token, '--max-retained-bytes-per-client', '20000']]);
        [a, b] = await Promise.all([replica('budget-a'), replica('budget-b')]);
    });

    it('counts the bytes finished tasks hold on either replica against one budget, names the limit on both, and frees it when they expire', async () => {
        const clients = [await fleet.client(a, { token }), await fleet.client(b, { token })];
        const label = 'b'.repeat(200);
        // Long enough that none of them expires while the budget fills, even on a loaded machine
        // (with 1 s, the reaper freed room between the two refusals checked below).
        const ttl = 15_000;
        let created = 0;
        let refused: McpError | undefined;
        while (!refused && created < 200) {
            // Alternating replicas: each create sees what the other's tasks hold.
            const task = await startSlowTask(clients[created % 2]!.client, 0, label, { ttl }).catch((err: McpError) => {
                refused = err;
                return undefined;
            });
            if (task) {
                created++;
            }
        }
        assert.ok(created > 5 && created < 40, `${created} tasks of about 1 KB each in 20,000 bytes, across both replicas`);
        for (const c of clients) {
            const again = refused ?? (await rejection(startSlowTask(c.client, 0, label)));
            assert.equal(again.code, -32000);
            assert.match(again.message, /limit 20000 bytes, --max-retained-bytes-per-client/);
            refused = undefined;
        }
        // Their ttl runs out and the reaper frees what they held: both replicas accept again.
        for (const c of clients) {
            await waitUntil(() => startSlowTask(c.client, 0, label, { ttl: 1000 }).then(() => true, () => false), 'room in the budget again', { timeoutMs: ttl * 4 });
        }
    });
});

describe('Redis availability', { skip }, () => {
    it('refuses to start when Redis cannot be reached, saying where', async () => {
        const port = await freePort();
        const run = await runCli(['--http', '--port', '0', '--store', `redis://127.0.0.1:${port}`, '--token', 'x']);
        assert.equal(run.code, 1);
        assert.equal(run.stdout, '', 'no URL line when not serving');
        assert.match(run.stderr, new RegExp(`cannot reach Redis at redis://127\\.0\\.0\\.1:${port}`));
    });

    it('refuses --store redis over HTTP without --token, and accepts it with --bind session', async () => {
        const run = await runCli(['--http', '--port', '0', '--store', 'redis://127.0.0.1:1'], 10_000, { MCP_TASKS_STORE: '' });
        assert.equal(run.code, 2);
        assert.match(run.stderr, /requires --token/);
        assert.match(run.stderr, /--bind session/);
        const fromEnv = await runCli(['--http', '--port', '0'], 10_000, { MCP_TASKS_STORE: 'redis://127.0.0.1:1' });
        assert.equal(fromEnv.code, 2, 'MCP_TASKS_STORE counts as --store');
        const badUrl = await runCli(['--store', 'http://example.invalid'], 10_000);
        assert.equal(badUrl.code, 2);
        assert.match(badUrl.stderr, /--store: .* must be memory, sqlite or redis:\/\/HOST:PORT\[\/DB\]/);
    });

    describe('an outage during operation', () => {
        const token = secret();
        const fleet = Fleet.forSuite();
        let redis: RedisServer;
        let server: HttpServer;
        let c: Connected;

        before(async () => {
            redis = await fleet.redis();
            server = await fleet.server(['--store', redis.url, '--token', token, '--worker-id', 'survivor', '--worker-lease', '10s']);
            c = await fleet.client(server, { token });
        });

        it('answers -32001 while Redis is down, reconnects, writes what finished meanwhile, and loses nothing', async () => {
            const done = await startSlowTask(c.client, 0, 'before');
            await c.client.experimental.tasks.getTaskResult(done.taskId, CallToolResultSchema);
            const running = await startSlowTask(c.client, 2, 'across');
            const waiting = c.client.experimental.tasks.getTaskResult(running.taskId, CallToolResultSchema);
            waiting.catch(() => undefined);
            await redis.cli('SAVE');
            await redis.kill('SIGKILL');

            const down = await rejection(c.client.experimental.tasks.getTask(done.taskId));
            assert.equal(down.code, -32001);
            assert.match(down.message, /Task store unavailable/);
            const refused = await rejection(startSlowTask(c.client, 1, 'refused'));
            assert.equal(refused.code, -32001);
            await server.log.waitFor(/\[store\] lost the connection to Redis/);
            await server.log.waitFor(/task \S+ ended completed while Redis is unreachable/);

            await redis.restart();
            await server.log.waitFor(/\[store\] reconnected to Redis/);
            // A loaded machine can drop the fresh connection once more; the answer then is the same
            // -32001 "try again shortly", and a client that does so gets its answer (any other error fails).
            const retried = <T>(call: () => Promise<T>, what: string) =>
                waitUntil(() => call().catch((err: McpError) => (err.code === -32001 ? undefined : Promise.reject(err))), what);
            const back = await retried(() => c.client.experimental.tasks.getTask(done.taskId), 'the store to answer after the reconnect');
            assert.equal(back.status, 'completed');
            const result = await waiting;
            assert.equal(textOf(result), 'Computation "across" completed after 2 seconds. Result: 42.', 'the waiter woke after the reconnect');
            assert.equal((await retried(() => c.client.experimental.tasks.getTask(running.taskId), 'the running task read')).status, 'completed');
            const after = await retried(() => startSlowTask(c.client, 0, 'after'), 'a task started after the reconnect');
            assert.equal(
                textOf(await retried(() => c.client.experimental.tasks.getTaskResult(after.taskId, CallToolResultSchema), 'its result')),
                'Computation "after" completed after 0 seconds. Result: 42.',
            );
        });
    });
});

describe('--store, --bind and several --token flags', () => {
    it('defaults to the memory store bound to the session, and binds to the token with Redis', () => {
        const plain = parseCli([], {});
        assert.equal(plain.storeUrl, undefined);
        assert.equal(plain.bindTo, 'session');
        assert.deepEqual(plain.tokens, []);
        assert.equal(plain.workerLeaseMs, 10_000);
        assert.equal(plain.storePrefix, 'mcp-tasks:');
        const redis = parseCli(['--http', '--store', 'redis://127.0.0.1:6379/2', '--token', 'a', '--token', 'b', '--token', 'a', '--worker-lease', '3s', '--worker-id', 'r1', '--store-prefix', 'x:'], {});
        assert.equal(redis.storeUrl, 'redis://127.0.0.1:6379/2');
        assert.equal(redis.bindTo, 'principal');
        assert.deepEqual(redis.tokens, ['a', 'b']);
        assert.equal(redis.workerLeaseMs, 3000);
        assert.equal(redis.workerId, 'r1');
        assert.equal(redis.storePrefix, 'x:');
        assert.equal(parseCli(['--store', 'memory'], { MCP_TASKS_STORE: 'redis://h:1' }).storeUrl, undefined, 'the flag wins over the env');
        assert.deepEqual(parseCli(['--http'], { MCP_TASKS_STORE: 'redis://h:1', MCP_TASKS_TOKEN: 'x, y' }).tokens, ['x', 'y']);
        assert.equal(parseCli(['--stdio', '--store', 'redis://h:1'], {}).bindTo, 'principal', 'stdio needs no token: each connection is its own client');
        assert.equal(parseCli(['--http', '--store', 'redis://h:1', '--bind', 'session'], {}).bindTo, 'session');
        assert.equal(parseCli(['--http', '--bind', 'principal', '--token', 't'], {}).bindTo, 'principal', 'the memory store can bind to the token too');
    });

    it('rejects what cannot work, naming the flag', () => {
        const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
            [['--http', '--store', 'redis://h:1'], {}, /requires --token/],
            [['--http', '--bind', 'principal'], {}, /--bind principal requires --token/],
            [['--bind', 'token'], {}, /--bind: "token" must be session or principal/],
            [['--store', 'mysql://h:1'], {}, /--store: .* must be memory, sqlite or redis:\/\/HOST:PORT\[\/DB\]/],
            [['--store', 'redis://h:1/db'], {}, /--store/],
            [['--store', 'not a url'], {}, /--store/],
            [['--worker-lease', '50ms'], {}, /--worker-lease must be at least 100ms/],
            [['--worker-id', 'has space'], {}, /--worker-id/],
            [['--token', 'a', '--token', 'o', '--owner-token', 'o'], {}, /--owner-token must differ from --token/],
        ];
        for (const [argv, env, reason] of cases) {
            assert.throws(() => parseCli(argv, env), (err: Error) => reason.test(err.message), argv.join(' '));
        }
    });
});
