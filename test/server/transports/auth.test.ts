/**
 * Authentication and isolation beyond security.test.ts: what the client credential cannot do that
 * the owner credential can, the stdio mode's owner-only endpoint and its announce file, the bind
 * and Host rules with --allow-remote, TTL and limit edges, and that no secret ever reaches a log
 * or an error message.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { secret, startHttpServer, type HttpServer } from '../../support/helpers.js';
import { StdioLines } from '../../support/lightRpc.js';
import { exitWithin, runCli } from '../../support/rawHelpers.js';
import { waitUntil } from '../../support/wait.js';
import { exchange, INITIALIZE, type Msg, RawHttp } from '../../support/rawHttp.js';
import { posixOnly } from '../../support/platforms.js';

const TASK_INFO = 'dev.mcp-tasks/task-info';
const PARENT = 'dev.mcp-tasks/parent-task-id';

function metaOf(value: unknown): Record<string, unknown> | undefined {
    return (value as { _meta?: Record<string, unknown> } | undefined)?._meta;
}

describe('the client credential grants no owner rights', () => {
    const token = secret();
    const ownerToken = secret();
    let server: HttpServer;
    let a: RawHttp;
    let b: RawHttp;
    let owner: RawHttp;
    const pushedToA: Msg[] = [];
    const pushedToB: Msg[] = [];
    const pushedToOwner: Msg[] = [];

    before(async () => {
        server = await startHttpServer(['--poll-interval', '100ms'], { MCP_TASKS_TOKEN: token, MCP_TASKS_OWNER_TOKEN: ownerToken });
        a = new RawHttp(server.url, { authorization: `Bearer ${token}` });
        b = new RawHttp(server.url, { authorization: `Bearer ${token}` });
        owner = new RawHttp(server.url, { authorization: `Bearer ${ownerToken}` });
        await a.initialize({ name: 'client-a' });
        await b.initialize({ name: 'client-b' });
        await owner.initialize({ name: 'owner' });
        await a.openStream(m => pushedToA.push(m));
        await b.openStream(m => pushedToB.push(m));
        await owner.openStream(m => pushedToOwner.push(m));
    });
    after(async () => {
        for (const c of [a, b, owner]) {
            c.destroy();
        }
        await server.stop();
    });

    it("shows a client no task-info _meta anywhere (the owner's view only)", async () => {
        const created = await a.createTask({ seconds: 0.2, label: 'mine' }, 'slow_compute');
        assert.equal(metaOf(created)?.[TASK_INFO], undefined, 'tools/call');
        const long = await a.createTask({ seconds: 30, label: 'long' });
        const views: [string, unknown][] = [
            ['tasks/get', await a.result('tasks/get', { taskId: created.taskId })],
            ['tasks/list', ((await a.result('tasks/list')).tasks as unknown[])[0]],
            ['tasks/cancel', await a.result('tasks/cancel', { taskId: long.taskId })],
        ];
        await a.result('tasks/result', { taskId: created.taskId });
        await waitUntil(() => pushedToA.some(m => m.params?.taskId === created.taskId && m.params?.status === 'completed'), "A's notification");
        views.push(['notifications/tasks/status', pushedToA.find(m => m.params?.taskId === created.taskId)!.params]);
        for (const [where, view] of views) {
            assert.equal(metaOf(view)?.[TASK_INFO], undefined, `${where} shows a client the owner's task-info`);
        }
        const ownerView = await owner.result('tasks/get', { taskId: created.taskId });
        assert.deepEqual(metaOf(ownerView)?.[TASK_INFO], { toolName: 'slow_compute', args: { seconds: 0.2, label: 'mine' }, clientName: 'client-a', keyArgument: 'mine', worker: (metaOf(ownerView)?.[TASK_INFO] as { worker: string }).worker });
        assert.ok(pushedToOwner.some(m => m.params?.taskId === created.taskId && metaOf(m.params)?.[TASK_INFO]), 'the owner is notified with task-info');
        assert.ok(!pushedToA.some(m => m.method === 'notifications/mcp-tasks/progress'), "owner progress never reaches a client");
    });

    it("answers get, result and cancel on another client's running, completed and cancelled tasks exactly like an unknown id", async () => {
        const running = await a.createTask({ seconds: 30, label: 'running' });
        const completed = await a.createTask({ seconds: 0, label: 'completed' });
        await a.result('tasks/result', { taskId: completed.taskId });
        const cancelled = await a.createTask({ seconds: 30, label: 'cancelled' });
        await a.result('tasks/cancel', { taskId: cancelled.taskId });
        const unknown = 'AAAAAAAAAAAAAAAAAAAAAA';
        for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
            const missing = await b.call(method, { taskId: unknown });
            for (const task of [running, completed, cancelled]) {
                const foreign = await b.call(method, { taskId: task.taskId });
                assert.deepEqual(foreign.error && { ...foreign.error, message: foreign.error.message.replace(task.taskId, '<id>') }, missing.error && { ...missing.error, message: missing.error.message.replace(unknown, '<id>') }, `${method} on a foreign task`);
            }
        }
        assert.equal((await a.result('tasks/get', { taskId: running.taskId })).status, 'working', "B's cancel did nothing");
        assert.ok(!pushedToB.some(m => [running, completed, cancelled].some(t => m.params?.taskId === t.taskId)), "A's notifications never reach B");
        await a.result('tasks/cancel', { taskId: running.taskId });
    });

    it("lists nothing of another client's, not even through the parent-task filter", async () => {
        const deploy = await a.createTask({ app: 'secret-app' }, 'deploy');
        const children = await waitUntil(async () => {
            const page = (await owner.result('tasks/list', { _meta: { [PARENT]: deploy.taskId } })).tasks as unknown[];
            return page.length >= 2 ? page : undefined;
        }, 'the deploy steps');
        assert.ok(children.length >= 2, 'the owner sees the sub-tasks');
        assert.deepEqual((await b.result('tasks/list', { _meta: { [PARENT]: deploy.taskId } })).tasks, []);
        const listedToB = ((await b.result('tasks/list')).tasks as { taskId: string }[]).map(t => t.taskId);
        assert.ok(!listedToB.includes(deploy.taskId));
        await a.result('tasks/cancel', { taskId: deploy.taskId });
    });

    it('refuses every near miss of either secret with 401, and answers a foreign Host or Origin with 403 before looking at the token', async () => {
        const variants = [
            `Bearer ${token}x`,
            `Bearer ${token.slice(0, -1)}`,
            `Bearer ${token.toUpperCase()}`,
            `Bearer ${ownerToken}x`,
            `Bearer ${ownerToken.slice(1)}`,
            `Basic ${ownerToken}`,
            `Bearer ${token} ${ownerToken}`,
            `${ownerToken}`,
            'Bearer',
            'Bearer ',
        ];
        for (const authorization of variants) {
            const res = await exchange(server.url, { headers: { 'content-type': 'application/json', accept: 'application/json', authorization }, body: JSON.stringify(INITIALIZE) });
            assert.equal(res.status, 401, authorization.replace(token, '<token>').replace(ownerToken, '<owner>'));
            assert.equal(res.headers['mcp-session-id'], undefined);
        }
        for (const authorization of [`Bearer ${token}`, `Bearer ${ownerToken}`]) {
            for (const headers of [{ host: `evil.example:${server.port}` }, { origin: 'http://evil.example' }] as Record<string, string>[]) {
                const res = await exchange(server.url, { headers: { 'content-type': 'application/json', accept: 'application/json', authorization, ...headers }, body: JSON.stringify(INITIALIZE) });
                assert.equal(res.status, 403, JSON.stringify(headers));
            }
        }
    });

    it("does not let a client's session id stand in for a credential, nor a client use the owner's session", async () => {
        // The owner's session id with the client token: reported like a missing session.
        const stolen = new RawHttp(server.url, { authorization: `Bearer ${token}` });
        stolen.sessionId = owner.sessionId;
        const res = await stolen.send({ jsonrpc: '2.0', id: 1, method: 'tasks/list' });
        assert.equal(res.status, 404);
        stolen.destroy();
    });
});

describe('the stdio owner channel (--owner-announce)', () => {
    const ownerToken = secret();
    const clientToken = secret();
    let dir: string;
    let file: string;
    let lines: StdioLines;
    let announced: { url: string; pid: number };
    const pushed: Msg[] = [];

    before(async () => {
        dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-auth-'));
        file = join(dir, 'owner.json');
        // As the extension launches it: secrets in the environment, never on the command line.
        lines = StdioLines.start(['--log-level', 'debug'], { MCP_TASKS_OWNER_TOKEN: ownerToken, MCP_TASKS_OWNER_ANNOUNCE: file, MCP_TASKS_TOKEN: clientToken });
        lines.onNotification = m => pushed.push(m);
        await lines.initialize();
        await waitUntil(() => existsSync(file), 'the announce file');
        announced = JSON.parse(readFileSync(file, 'utf8')) as { url: string; pid: number };
    });
    after(() => {
        lines.kill();
        rmSync(dir, { recursive: true, force: true });
    });

    it('writes only the URL and pid, to a 0600 file, in the 0700 directory it was given', posixOnly('Windows has no file modes 0600/0700'), () => {
        assert.equal(statSync(file).mode & 0o777, 0o600);
        assert.equal(statSync(dir).mode & 0o777, 0o700);
        assert.deepEqual(Object.keys(announced).sort(), ['pid', 'url']);
        assert.equal(announced.pid, lines.pid);
        assert.match(announced.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        assert.ok(!readFileSync(file, 'utf8').includes(ownerToken));
    });

    it('opens only to the owner token: no token, the client token or a near miss get 401; a foreign Host or Origin 403', async () => {
        for (const authorization of [undefined, `Bearer ${clientToken}`, `Bearer ${ownerToken}0`, `Basic ${ownerToken}`]) {
            const res = await exchange(announced.url, { headers: { 'content-type': 'application/json', accept: 'application/json', ...(authorization ? { authorization } : {}) }, body: JSON.stringify(INITIALIZE) });
            assert.equal(res.status, 401, String(authorization).replace(clientToken, '<client>').replace(ownerToken, '<owner>'));
        }
        const port = new URL(announced.url).port;
        for (const headers of [{ host: `evil.example:${port}` }, { origin: 'http://evil.example' }] as Record<string, string>[]) {
            const res = await exchange(announced.url, { headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${ownerToken}`, ...headers }, body: JSON.stringify(INITIALIZE) });
            assert.equal(res.status, 403);
        }
    });

    it("lets the owner see and cancel the stdio client's task, which learns why", async () => {
        const owner = new RawHttp(announced.url, { authorization: `Bearer ${ownerToken}` });
        await owner.initialize({ name: 'editor' });
        const created = await lines.call(1, 'tools/call', { name: 'slow_compute', arguments: { seconds: 30, label: 'stdio-task' }, task: {} });
        const taskId = ((created.result as Msg).task as { taskId: string }).taskId;
        const listed = (await owner.result('tasks/list')).tasks as Msg[];
        const entry = listed.find(t => t.taskId === taskId);
        assert.equal((metaOf(entry)?.[TASK_INFO] as { clientName: string }).clientName, 'stdio-light');
        const cancelled = await owner.result('tasks/cancel', { taskId });
        assert.equal(cancelled.statusMessage, 'Cancelled from the MCP Tasks sidebar');
        await waitUntil(() => pushed.some(m => m.params?.taskId === taskId && m.params?.status === 'cancelled'), 'the stdio client to be told');
        assert.equal(metaOf(pushed.find(m => m.params?.taskId === taskId)?.params)?.[TASK_INFO], undefined, 'the stdio client gets no task-info');
        await owner.close();
    });

    it('never logs either secret at debug level, and removes the announce file when it stops', async () => {
        lines.write({ jsonrpc: '2.0', id: 424242, result: {} });
        await lines.call(2, 'ping');
        const exited = exitWithin(lines.proc, 5000);
        lines.proc.stdin.end();
        assert.deepEqual(await exited, { code: 0, signal: null });
        await waitUntil(() => !existsSync(file), 'the announce file to go');
        const log = lines.log.lines.join('\n');
        assert.ok(log.includes('DEBUG [session] response for unknown request id 424242'), 'debug lines were written');
        for (const [name, value] of [['owner token', ownerToken], ['client token', clientToken]] as const) {
            assert.ok(!log.includes(value), `the ${name} appears in the log`);
            assert.ok(!log.includes(value.slice(0, 12)), `a prefix of the ${name} appears in the log`);
        }
    });
});

describe('secrets stay out of logs and error messages (HTTP, debug level)', () => {
    it('logs neither token through an owner session, a client session and failed authentication with both', { timeout: 30_000 }, async () => {
        const token = secret();
        const ownerToken = secret();
        const server = await startHttpServer(['--log-level', 'debug'], { MCP_TASKS_TOKEN: token, MCP_TASKS_OWNER_TOKEN: ownerToken });
        const bodies: string[] = [];
        try {
            const owner = new RawHttp(server.url, { authorization: `Bearer ${ownerToken}` });
            const client = new RawHttp(server.url, { authorization: `Bearer ${token}` });
            await owner.initialize({ name: 'owner' });
            await client.initialize({ name: 'client' });
            const stream = await owner.openStream(() => undefined);
            const task = await client.createTask({ seconds: 0.1, label: 'logged' });
            await owner.result('tasks/get', { taskId: task.taskId });
            await client.result('tasks/result', { taskId: task.taskId });
            const long = await client.createTask({ seconds: 30, label: 'long' });
            await owner.result('tasks/cancel', { taskId: long.taskId });
            await owner.result('tasks/list');
            // A debug line for certain: an answer to a request the server never sent.
            assert.equal((await client.send({ jsonrpc: '2.0', id: 424242, result: {} })).status, 202);
            bodies.push(JSON.stringify(await client.call('tasks/get', { taskId: 'nope' })));
            for (const authorization of [`Bearer ${token}x`, `Bearer ${ownerToken}x`, `Basic ${ownerToken}`, `Bearer ${ownerToken.slice(0, 20)}`]) {
                const res = await exchange(server.url, { headers: { 'content-type': 'application/json', accept: 'application/json', authorization }, body: JSON.stringify(INITIALIZE) });
                assert.equal(res.status, 401);
                bodies.push(res.body);
            }
            // The owner token as a session id is just an unknown session.
            const res = await exchange(server.url, { headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}`, 'mcp-session-id': ownerToken }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
            assert.equal(res.status, 404);
            bodies.push(res.body);
            stream.close();
            owner.destroy();
            client.destroy();
        } finally {
            await server.stop();
        }
        const log = server.log.lines.join('\n');
        assert.ok(log.includes('DEBUG [session] response for unknown request id 424242'), 'debug lines were written');
        for (const [name, value] of [['owner token', ownerToken], ['client token', token]] as const) {
            assert.ok(!log.includes(value.slice(0, 12)), `the ${name} (or a prefix) appears in the log`);
            assert.ok(!bodies.some(body => body.includes(value.slice(0, 12))), `the ${name} appears in an error message`);
        }
    });

    it('keeps secrets out of command-line errors', async () => {
        const token = secret();
        const runs = [
            await runCli(['--http', '--port', '0', '--token', token, '--owner-token', token]),
            await runCli(['--http', '--port', '0', '--token', token, '--bogus']),
            await runCli(['--http', '--host', '0.0.0.0', '--port', '0', '--token', token]),
            await runCli(['--stdio', '--owner-token', token, '--owner-announce', '/nonexistent-dir/owner.json'], 5000),
        ];
        for (const run of runs) {
            assert.ok(!run.stderr.includes(token.slice(0, 12)) && !run.stdout.includes(token.slice(0, 12)), `a secret in: ${run.stderr.replace(token, '<token>')}`);
        }
    });
});

describe('binding and the Host check', () => {
    it('refuses any non-loopback --host without --allow-remote, and --allow-remote without --token', async () => {
        for (const host of ['0.0.0.0', '::', '192.0.2.10', 'example.com', '127.0.0.1.nip.io']) {
            const run = await runCli(['--http', '--host', host, '--port', '0']);
            assert.notEqual(run.code, 0, host);
            assert.equal(run.stdout, '', `${host}: no URL line`);
            assert.match(run.stderr, /Refusing to listen on non-loopback address/, host);
        }
        const run = await runCli(['--http', '--host', '0.0.0.0', '--port', '0', '--allow-remote']);
        assert.equal(run.code, 2);
        assert.match(run.stderr, /--allow-remote requires --token/);
    });

    it('with --allow-remote skips only the Host check: the token and the Origin check still apply', async () => {
        const token = secret();
        // Bound to loopback still (tests never listen beyond this machine); only the rules change.
        const server = await startHttpServer(['--allow-remote'], { MCP_TASKS_TOKEN: token });
        try {
            const post = (headers: Record<string, string>) => exchange(server.url, { headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: JSON.stringify(INITIALIZE) });
            assert.equal((await post({ host: 'tasks.example.com', authorization: `Bearer ${token}` })).status, 200);
            assert.equal((await post({ host: 'tasks.example.com' })).status, 401);
            assert.equal((await post({ host: 'tasks.example.com', authorization: `Bearer ${token}`, origin: 'http://evil.example' })).status, 403);
        } finally {
            await server.stop();
        }
    });
});

describe('TTL and live-task limits at their edges', () => {
    let server: HttpServer;
    let a: RawHttp;
    let b: RawHttp;

    before(async () => {
        server = await startHttpServer(['--default-ttl', '2s', '--max-ttl', '5s', '--max-tasks-per-client', '3']);
        a = new RawHttp(server.url);
        b = new RawHttp(server.url);
        await a.initialize();
        await b.initialize();
    });
    after(async () => {
        a.destroy();
        b.destroy();
        await server.stop();
    });

    it('clamps a ttl into [1 s, --max-ttl], uses the default for none or null, and refuses a negative or non-number one', async () => {
        const ttlOf = async (task: Record<string, unknown>) => {
            const answer = await a.call('tools/call', { name: 'slow_compute', arguments: { seconds: 0 }, task });
            return answer.error ? answer.error.code : (answer.result!.task as { ttl: number }).ttl;
        };
        assert.equal(await ttlOf({}), 2000);
        assert.equal(await ttlOf({ ttl: null }), 2000);
        assert.equal(await ttlOf({ ttl: 0 }), 1000);
        assert.equal(await ttlOf({ ttl: 999 }), 1000);
        assert.equal(await ttlOf({ ttl: 3000 }), 3000);
        assert.equal(await ttlOf({ ttl: 60_000 }), 5000);
        assert.equal(await ttlOf({ ttl: 1e308 }), 5000);
        assert.equal(await ttlOf({ ttl: -1 }), -32602);
        assert.equal(await ttlOf({ ttl: '3000' }), -32602);
        assert.equal(await ttlOf({ ttl: [3000] }), -32602);
    });

    it('refuses a task over the live limit with -32000 and the limit as data, creates nothing, and leaves other clients alone', async () => {
        const live = await Promise.all([1, 2, 3].map(i => a.createTask({ seconds: 30, label: `live-${i}` })));
        // The earlier 0 s tasks of this client must have ended: only the three live ones are working.
        await waitUntil(async () => ((await a.result('tasks/list')).tasks as { status: string }[]).filter(t => t.status === 'working').length === 3, 'only the three live tasks to be working');
        const listedBefore = ((await a.result('tasks/list')).tasks as unknown[]).length;
        const refused = await a.call('tools/call', { name: 'slow_compute', arguments: { seconds: 30, label: 'one-too-many' }, task: {} });
        assert.equal(refused.error?.code, -32000);
        assert.match(refused.error!.message, /Too many live tasks for this client \(limit 3\)/);
        assert.deepEqual((refused.error as { data?: unknown }).data, { limit: 3 });
        assert.equal(((await a.result('tasks/list')).tasks as unknown[]).length, listedBefore, 'nothing was created');
        // Inline calls are not tasks: still served.
        assert.ok((await a.call('tools/call', { name: 'greet', arguments: { name: 'A' } })).result);
        const ofB = await Promise.all([1, 2, 3].map(i => b.createTask({ seconds: 30, label: `b-${i}` })));
        assert.equal(ofB.length, 3);
        await a.result('tasks/cancel', { taskId: live[0]!.taskId });
        assert.equal((await a.createTask({ seconds: 30, label: 'room-again' })).status, 'working');
    });
});
