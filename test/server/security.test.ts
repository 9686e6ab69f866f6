import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { CallToolResultSchema, ListTasksResultSchema, type McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Fleet } from '../support/fleet.js';
import { connect, secret, TEST_STORE, type Connected, type HttpServer } from '../support/helpers.js';
import { runCli } from '../support/rawHelpers.js';
import { listAll, rejection, startSlowTask } from '../support/taskCalls.js';
import { waitUntil } from '../support/wait.js';
import { exchange, INITIALIZE, type JsonRpcError, RawHttp } from '../support/rawHttp.js';

describe('bearer token (--token)', () => {
    const token = secret();
    const fleet = Fleet.forSuite();
    let server: HttpServer;

    before(async () => {
        server = await fleet.server(['--token', token]);
    });

    for (const [what, headers] of [
        ['no token', {}],
        ['a wrong token', { authorization: `Bearer ${secret()}` }],
        ['the token under another scheme', { authorization: `Basic ${token}` }],
    ] as const) {
        it(`answers ${what} with 401 and WWW-Authenticate`, async () => {
            const res = await new RawHttp(server.url, headers).post(INITIALIZE);
            assert.equal(res.status, 401);
            assert.equal(res.header('www-authenticate'), 'Bearer');
            assert.equal(res.header('mcp-session-id'), undefined);
            const body = res.json<JsonRpcError>();
            assert.match(body.error.message, /Unauthorized/);
        });
    }

    it('serves the right token, and still demands it after initialize', async () => {
        const raw = new RawHttp(server.url, { authorization: `Bearer ${token}` });
        await raw.initialize();
        assert.ok(raw.sessionId);
        const greeting = await raw.call('tools/call', { name: 'greet', arguments: { name: 'T' } });
        assert.match(JSON.stringify(greeting.result), /Hello, T!/);

        const stolen = new RawHttp(server.url);
        stolen.sessionId = raw.sessionId;
        const res = await stolen.post({ jsonrpc: '2.0', id: 2, method: 'ping' });
        assert.equal(res.status, 401, 'a session id alone is not a credential');
    });
});

describe('Host and Origin checks', () => {
    const fleet = Fleet.forSuite();
    let server: HttpServer;

    before(async () => {
        server = await fleet.server();
    });

    const post = (headers: Record<string, string>) =>
        exchange(server.url, { headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: JSON.stringify(INITIALIZE) });

    it('accepts loopback Host headers naming its port', async () => {
        for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `LOCALHOST:${server.port}`]) {
            const res = await post({ host });
            assert.equal(res.status, 200, host);
        }
    });

    it('refuses a non-loopback Host with 403 (DNS rebinding)', async () => {
        for (const host of [`evil.example:${server.port}`, 'evil.example', `127.0.0.1.evil.example:${server.port}`]) {
            const res = await post({ host });
            assert.equal(res.status, 403, host);
            assert.match((JSON.parse(res.body) as JsonRpcError).error.message, /Forbidden/);
        }
    });

    it('refuses a loopback Host with the wrong port with 403', async () => {
        for (const host of [`127.0.0.1:${server.port + 1}`, `localhost:${server.port === 80 ? 81 : 80}`, 'localhost']) {
            const res = await post({ host });
            assert.equal(res.status, 403, host);
        }
    });

    it('refuses a foreign Origin with 403 and accepts a loopback one', async () => {
        for (const origin of ['http://evil.example', 'https://evil.example:443', 'null', 'http://localhost.evil.example']) {
            const res = await post({ origin });
            assert.equal(res.status, 403, origin);
        }
        for (const origin of ['http://localhost:3000', 'http://127.0.0.1:5173']) {
            const res = await post({ origin });
            assert.equal(res.status, 200, origin);
            assert.ok(res.headers['mcp-session-id']);
        }
    });

    it('refuses a non-loopback --host without --allow-remote', async () => {
        const run = await runCli(['--http', '--host', '0.0.0.0', '--port', '0']);
        assert.notEqual(run.code, 0);
        assert.equal(run.stdout, '', 'no URL line when not listening');
        assert.match(run.stderr, /Refusing to listen on non-loopback address 0\.0\.0\.0/);
        assert.match(run.stderr, /--allow-remote/);

        const withoutToken = await runCli(['--http', '--host', '0.0.0.0', '--port', '0', '--allow-remote']);
        assert.equal(withoutToken.code, 2);
        assert.match(withoutToken.stderr, /--allow-remote requires --token/);
    });
});

describe('task isolation between HTTP sessions', () => {
    const fleet = Fleet.forSuite();
    let a: Connected;
    let b: Connected;

    before(async () => {
        [a, b] = await fleet.connectAll(await fleet.server(), { name: 'client-a' }, { name: 'client-b' });
    });

    it("answers B's get, result and cancel on A's task exactly like an unknown id", async () => {
        const task = await startSlowTask(a.client, 30);
        const unknown = 'AAAAAAAAAAAAAAAAAAAAAA';
        const operations: [string, (id: string) => Promise<unknown>][] = [
            ['tasks/get', id => b.client.experimental.tasks.getTask(id)],
            ['tasks/result', id => b.client.experimental.tasks.getTaskResult(id, CallToolResultSchema)],
            ['tasks/cancel', id => b.client.experimental.tasks.cancelTask(id)],
        ];
        for (const [method, run] of operations) {
            const foreign = await rejection(run(task.taskId));
            const missing = await rejection(run(unknown));
            assert.equal(foreign.code, -32602, method);
            assert.equal(missing.code, -32602, method);
            assert.equal(foreign.message.replace(task.taskId, '<id>'), missing.message.replace(unknown, '<id>'), method);
        }
        const mine = await a.client.experimental.tasks.getTask(task.taskId);
        assert.equal(mine.status, 'working', "B's cancel did not touch A's task");
        await a.client.experimental.tasks.cancelTask(task.taskId);
    });

    it("never lists A's tasks to B", async () => {
        const ofA = await startSlowTask(a.client, 0);
        const ofB = await startSlowTask(b.client, 0);
        const listedToA = await listAll(a.client);
        const listedToB = await listAll(b.client);
        assert.ok(listedToA.includes(ofA.taskId));
        assert.ok(listedToB.includes(ofB.taskId));
        assert.ok(!listedToB.includes(ofA.taskId));
        assert.ok(!listedToA.includes(ofB.taskId));
    });
});

describe('owner token (--owner-token)', () => {
    const token = secret();
    // A shared store binds tasks to the token, not the session: there B needs a token of its own.
    const tokenB = TEST_STORE ? secret() : token;
    const ownerToken = secret();
    const fleet = Fleet.forSuite();
    let server: HttpServer;
    let a: Connected;
    let b: Connected;
    let owner: Connected;

    before(async () => {
        server = await fleet.server(['--token', token, '--token', tokenB, '--owner-token', ownerToken]);
        [a, b, owner] = await fleet.connectAll(server, { token, name: 'client-a' }, { token: tokenB, name: 'client-b' }, { token: ownerToken, name: 'sidebar' });
    });

    it("sees, gets and cancels every client's tasks, while a client on --token sees only its own", async () => {
        const ofA = await startSlowTask(a.client, 30);
        const ofB = await startSlowTask(b.client, 30);

        const listedToOwner = await listAll(owner.client);
        assert.ok(listedToOwner.includes(ofA.taskId) && listedToOwner.includes(ofB.taskId));
        // The SDK's Task schema drops _meta; a raw owner session shows what each task is and whose.
        const raw = new RawHttp(server.url, { authorization: `Bearer ${ownerToken}` });
        await raw.initialize();
        const { tasks } = (await raw.call('tasks/list')).result as { tasks: { taskId: string; _meta?: Record<string, { toolName: string; clientName: string }> }[] };
        const info = tasks.filter(t => t.taskId === ofA.taskId || t.taskId === ofB.taskId).map(t => t._meta?.['dev.mcp-tasks/task-info']);
        assert.deepEqual(info.map(i => i?.toolName), ['slow_compute', 'slow_compute']);
        assert.deepEqual(info.map(i => i?.clientName).sort(), ['client-a', 'client-b']);

        const listedToB = await listAll(b.client);
        assert.ok(listedToB.includes(ofB.taskId));
        assert.ok(!listedToB.includes(ofA.taskId), TEST_STORE ? 'another --token sees none of its tasks' : 'the same --token does not share tasks between sessions');
        assert.equal((await rejection(b.client.experimental.tasks.getTask(ofA.taskId))).code, -32602);

        assert.equal((await owner.client.experimental.tasks.getTask(ofA.taskId)).status, 'working');
        const cancelled = await owner.client.experimental.tasks.cancelTask(ofA.taskId);
        assert.equal(cancelled.status, 'cancelled');
        assert.match(cancelled.statusMessage ?? '', /sidebar/);
        const seenByA = await a.client.experimental.tasks.getTask(ofA.taskId);
        assert.equal(seenByA.status, 'cancelled');
        assert.match(seenByA.statusMessage ?? '', /sidebar/);
        assert.equal((await b.client.experimental.tasks.getTask(ofB.taskId)).status, 'working');
        await b.client.experimental.tasks.cancelTask(ofB.taskId);
    });

    it('refuses to start when --owner-token equals --token', async () => {
        const same = secret();
        const run = await runCli(['--http', '--port', '0', '--token', same, '--owner-token', same]);
        assert.equal(run.code, 2);
        assert.equal(run.stdout, '');
        assert.match(run.stderr, /--owner-token must differ from --token/);
    });
});

describe('task retention (--default-ttl, --max-ttl)', () => {
    const fleet = Fleet.forSuite();
    let c: Connected;

    before(async () => {
        c = await fleet.client(await fleet.server(['--default-ttl', '1500ms', '--max-ttl', '5s']));
    });

    it('clamps a requested ttl to --max-ttl and keeps smaller ones', async () => {
        const clamped = await startSlowTask(c.client, 0, 'sec', { ttl: 60_000 });
        assert.equal(clamped.ttl, 5000);
        assert.equal((await c.client.experimental.tasks.getTask(clamped.taskId)).ttl, 5000);
        const kept = await startSlowTask(c.client, 0, 'sec', { ttl: 2000 });
        assert.equal((await c.client.experimental.tasks.getTask(kept.taskId)).ttl, 2000);
    });

    it('deletes a finished task once its default ttl has passed', async () => {
        const task = await startSlowTask(c.client, 0);
        assert.equal(task.ttl, 1500);
        await c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        assert.equal((await c.client.experimental.tasks.getTask(task.taskId)).status, 'completed');
        assert.ok((await listAll(c.client)).includes(task.taskId));

        await waitUntil(() => c.client.experimental.tasks.getTask(task.taskId).then(
                () => false,
                (err: McpError) => err.code === -32602,
            ), 'the task to expire');
        assert.ok(!(await listAll(c.client)).includes(task.taskId));
        assert.equal((await rejection(c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema))).code, -32602);
    });
});

describe('live tasks per client (--max-tasks-per-client)', () => {
    const fleet = Fleet.forSuite();
    let a: Connected;
    let b: Connected;

    before(async () => {
        [a, b] = await fleet.connectAll(await fleet.server(['--max-tasks-per-client', '2']), {}, {});
    });

    it('refuses a third live task with an explanation, per client, until one finishes', async () => {
        const short = await startSlowTask(a.client, 1);
        const long = await startSlowTask(a.client, 30);
        const refused = await rejection(startSlowTask(a.client, 30));
        assert.equal(refused.code, -32000);
        assert.match(refused.message, /Too many live tasks for this client \(limit 2\)/);

        const ofB = await startSlowTask(b.client, 30);
        assert.equal(ofB.status, 'working', 'another client is not affected');

        await a.client.experimental.tasks.getTaskResult(short.taskId, CallToolResultSchema);
        const again = await startSlowTask(a.client, 30);
        assert.equal(again.status, 'working');
        await Promise.all([long, again].map(t => a.client.experimental.tasks.cancelTask(t.taskId)));
        await b.client.experimental.tasks.cancelTask(ofB.taskId);
        // Cancelled tasks no longer count either.
        await startSlowTask(a.client, 0);
        await startSlowTask(a.client, 0);
    });
});

describe('tasks/list pagination and task ids', () => {
    const fleet = Fleet.forSuite();
    let server: HttpServer;

    before(async () => {
        server = await fleet.server();
    });

    const createMany = async (client: Client, count: number): Promise<string[]> => {
        const ids: string[] = [];
        for (let i = 0; i < count; i += 25) {
            const batch = await Promise.all(Array.from({ length: Math.min(25, count - i) }, () => startSlowTask(client, 0)));
            ids.push(...batch.map(t => t.taskId));
        }
        return ids;
    };

    it('walks more than 100 tasks with nextCursor, each exactly once, including ones created mid-walk', async () => {
        const c = await connect('http', server);
        try {
            const created = await createMany(c.client, 130);
            const first = await c.client.experimental.tasks.listTasks();
            assert.equal(first.tasks.length, 100);
            assert.ok(first.nextCursor);
            const late = await createMany(c.client, 5);
            const walked = first.tasks.map(t => t.taskId);
            let cursor: string | undefined = first.nextCursor;
            let pages = 1;
            while (cursor) {
                const page = await c.client.experimental.tasks.listTasks(cursor);
                walked.push(...page.tasks.map(t => t.taskId));
                cursor = page.nextCursor;
                pages++;
            }
            assert.equal(pages, 2);
            assert.equal(new Set(walked).size, walked.length, 'no duplicates');
            assert.deepEqual([...walked].sort(), [...created, ...late].sort());
        } finally {
            await c.close();
        }
    });

    it('answers a cursor it did not issue with -32602', async () => {
        const c = await connect('http', server);
        try {
            await startSlowTask(c.client, 0);
            for (const cursor of ['garbage', 'c1.' + Buffer.from('not-a-number').toString('base64url'), 'c1.', '']) {
                const err = await rejection(c.client.request({ method: 'tasks/list', params: { cursor } }, ListTasksResultSchema));
                assert.equal(err.code, -32602, JSON.stringify(cursor));
                assert.match(err.message, /Invalid cursor/);
            }
        } finally {
            await c.close();
        }
    });

    it('gives 100 distinct task ids of at least 128 random bits', async () => {
        const c = await connect('http', server);
        try {
            const ids = await createMany(c.client, 100);
            assert.equal(new Set(ids).size, 100);
            for (const id of ids) {
                assert.match(id, /^[A-Za-z0-9_-]{22,}$/);
                assert.ok(Buffer.from(id, 'base64url').length >= 16, id);
            }
        } finally {
            await c.close();
        }
    });
});
