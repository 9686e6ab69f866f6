// The durable store (--store sqlite) with real server processes on one data folder: a finished
// task read again after SIGTERM and after SIGKILL of its server, on both revisions; a task whose
// work died with its server reported failed, in words; two servers sharing the file, 200 tasks
// each, nothing lost or crossed; the file readable by this user only; the store by default (and
// --store memory keeping none); and a Node.js without node:sqlite keeping tasks in memory, saying so.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SERVER_JS } from '../../support/helpers.js';
import { StdioLines } from '../../support/lightRpc.js';
import { meta } from '../../support/rev2026.js';
import { waitUntil } from '../../support/wait.js';
import { posixOnly } from '../../support/platforms.js';

type Result = Record<string, unknown>;

const dirs: string[] = [];
const servers: StdioLines[] = [];

function dataDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-durable-'));
    dirs.push(dir);
    return join(dir, 'data');
}

/** A server on `dir`; `revision` 2026-07-28 speaks without initialize, as such a client does. */
async function durable(dir: string, revision: '2025-11-25' | '2026-07-28' = '2025-11-25'): Promise<StdioLines> {
    const server = StdioLines.start(['--store', 'sqlite', '--data-dir', dir]);
    servers.push(server);
    if (revision === '2025-11-25') {
        await server.initialize();
    }
    return server;
}

let nextId = 1;

async function result(server: StdioLines, method: string, params: Result): Promise<Result> {
    const response = await server.call(nextId++, method, params);
    assert.ok(response.result, `${method}: ${JSON.stringify(response)}`);
    return response.result as Result;
}

async function startTask(server: StdioLines, args: Result): Promise<string> {
    const created = await result(server, 'tools/call', { name: 'slow_compute', arguments: args, task: {} });
    return (created.task as { taskId: string }).taskId;
}

async function untilStatus(server: StdioLines, taskId: string, status: string): Promise<Result> {
    return waitUntil(
        async () => {
            const task = await result(server, 'tasks/get', { taskId });
            return task.status === status ? task : undefined;
        },
        `task ${taskId} to be ${status}`,
        { everyMs: 20 },
    );
}

function stop(server: StdioLines, signal: NodeJS.Signals): Promise<void> {
    return new Promise(resolve => {
        server.proc.once('exit', () => resolve());
        server.proc.kill(signal);
    });
}

const text = (value: Result) => ((value.content as { text: string }[])[0]!).text;

after(() => {
    for (const server of servers) {
        server.kill();
    }
    for (const dir of dirs) {
        rmSync(dir, { recursive: true, force: true });
    }
});

describe('the durable store across restarts (--store sqlite)', () => {
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        it(`keeps a finished task's status and result for the next server after ${signal}`, async () => {
            const dir = dataDir();
            const first = await durable(dir);
            const taskId = await startTask(first, { seconds: 0, label: `kept over ${signal}` });
            const done = await untilStatus(first, taskId, 'completed');
            await stop(first, signal);

            const second = await durable(dir);
            const again = await result(second, 'tasks/get', { taskId });
            assert.equal(again.status, 'completed');
            assert.equal(again.createdAt, done.createdAt);
            assert.match(text(await result(second, 'tasks/result', { taskId })), new RegExp(`Computation "kept over ${signal}" completed`));
            assert.match(second.log.lines.join('\n'), /\[store\] tasks are kept in .*tasks\.db; took over 1 finished task/);
            // Found by its id, listed to nobody but its own client: another host's server on the same folder would list it too otherwise.
            assert.deepEqual((await result(second, 'tasks/list', {})).tasks, []);
        });
    }

    it('fails a task whose work ran in the server that died, saying so, never leaving it working', async () => {
        const dir = dataDir();
        const first = await durable(dir);
        const taskId = await startTask(first, { seconds: 3600, label: 'lost' });
        await untilStatus(first, taskId, 'working');
        await stop(first, 'SIGKILL');

        const second = await durable(dir);
        const task = await result(second, 'tasks/get', { taskId });
        assert.equal(task.status, 'failed');
        assert.match(task.statusMessage as string, /^The server restarted: this task's work ran in the previous server process, which ended before it finished\. Call slow_compute again/);
        const outcome = await result(second, 'tasks/result', { taskId });
        assert.equal(outcome.isError, true);
        assert.equal(text(outcome), task.statusMessage);
    });

    it('answers a 2026-07-28 client by task id after the restart: the id is its handle', async () => {
        const dir = dataDir();
        const first = await durable(dir, '2026-07-28');
        const created = await result(first, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'stateless' }, _meta: meta() });
        assert.equal(created.resultType, 'task', JSON.stringify(created));
        const taskId = created.taskId as string;
        await waitUntil(async () => (await result(first, 'tasks/get', { taskId, _meta: meta() })).status === 'completed', 'the task to complete', { everyMs: 20 });
        await stop(first, 'SIGKILL');

        const second = await durable(dir, '2026-07-28');
        const again = await result(second, 'tasks/get', { taskId, _meta: meta() });
        assert.equal(again.status, 'completed');
        assert.match(text(again.result as Result), /Computation "stateless" completed/);
    });

    it('lets two live servers share the file with 200 tasks each, nothing lost or crossed, and the next server find all 400', async () => {
        const dir = dataDir();
        const [a, b] = [await durable(dir), await durable(dir)];
        const ids = new Map<StdioLines, string[]>([
            [a, []],
            [b, []],
        ]);
        // Interleaved, so both write to the file at the same time.
        await Promise.all(
            [a, b].map(async server => {
                for (let i = 0; i < 200; i++) {
                    ids.get(server)!.push(await startTask(server, { seconds: 0, label: `n${i}` }));
                }
            }),
        );
        for (const [server, other] of [
            [a, b],
            [b, a],
        ] as const) {
            const listed: string[] = [];
            let cursor: string | undefined;
            do {
                const page = await result(server, 'tasks/list', cursor ? { cursor } : {});
                listed.push(...(page.tasks as { taskId: string }[]).map(task => task.taskId));
                cursor = page.nextCursor as string | undefined;
            } while (cursor);
            assert.deepEqual(listed.sort(), [...ids.get(server)!].sort(), 'each lists exactly its own 200');
            const foreign = await server.call(nextId++, 'tasks/get', { taskId: ids.get(other)![0] });
            assert.equal((foreign.error as { code: number }).code, -32602, "a live server's task is not the other's to read");
        }
        for (const server of [a, b]) {
            for (const taskId of ids.get(server)!) {
                await untilStatus(server, taskId, 'completed');
            }
        }
        await Promise.all([stop(a, 'SIGKILL'), stop(b, 'SIGKILL')]);

        const next = await durable(dir);
        const all = [...ids.get(a)!, ...ids.get(b)!];
        assert.equal(new Set(all).size, 400);
        for (const taskId of all) {
            assert.equal((await result(next, 'tasks/get', { taskId })).status, 'completed', taskId);
        }
        assert.match(next.log.lines.join('\n'), /took over 400 finished task\(s\)/);
    });

    it('keeps the file and its folder to this user alone', posixOnly('Windows has no file modes; the folder is private by its inherited ACL'), async () => {
        const dir = dataDir();
        const server = await durable(dir);
        await startTask(server, { seconds: 0, label: 'private' });
        assert.equal(statSync(dir).mode & 0o777, 0o700);
        assert.equal(statSync(join(dir, 'tasks.db')).mode & 0o777, 0o600);
    });

    it('is the store a server gets when --store is not given, in the folder MCP_TASKS_DATA_DIR names', async () => {
        const dir = dataDir();
        // The test helpers default MCP_TASKS_STORE to memory; empty reads as unset.
        const first = StdioLines.start([], { MCP_TASKS_STORE: '', MCP_TASKS_DATA_DIR: dir });
        servers.push(first);
        await first.initialize();
        const taskId = await startTask(first, { seconds: 0, label: 'by default' });
        await untilStatus(first, taskId, 'completed');
        assert.ok(first.log.lines.some(line => line.includes(`[store] tasks are kept in ${join(dir, 'tasks.db')}`)), first.log.lines.join('\n'));
        await stop(first, 'SIGKILL');

        const second = StdioLines.start([], { MCP_TASKS_STORE: '', MCP_TASKS_DATA_DIR: dir });
        servers.push(second);
        await second.initialize();
        assert.equal((await result(second, 'tasks/get', { taskId })).status, 'completed');
    });

    it('keeps no file with --store memory, and says nothing about it', async () => {
        const dir = dataDir();
        const server = StdioLines.start(['--store', 'memory', '--data-dir', dir]);
        servers.push(server);
        await server.initialize();
        const taskId = await startTask(server, { seconds: 0, label: 'in memory' });
        await untilStatus(server, taskId, 'completed');
        assert.equal(existsSync(dir), false);
        assert.ok(!server.log.lines.some(line => line.includes('[store]')), server.log.lines.join('\n'));
    });

    for (const [how, args] of [
        ['by default', []],
        ['with --store sqlite', ['--store', 'sqlite']],
    ] as const) {
        it(`keeps tasks in memory on a Node.js without node:sqlite ${how}, and says so in one line`, { skip: nodeWithoutSqlite() ? false : 'no Node.js without node:sqlite on this machine' }, () => {
            const node = nodeWithoutSqlite()!;
            const dir = dataDir();
            const run = spawnSync(node, [SERVER_JS, '--stdio', ...args, '--data-dir', dir], {
                input: `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`,
                encoding: 'utf8',
                timeout: 30_000,
                env: { ...process.env, MCP_TASKS_STORE: '' },
            });
            assert.match(run.stdout, /"id":1,"result":\{\}/);
            const lines = run.stderr.split('\n').filter(line => line.includes('[store]'));
            assert.equal(lines.length, 1, run.stderr);
            assert.match(lines[0]!, /has no node:sqlite, so tasks are kept in memory and end with this process: run on Node\.js 22\.13 or later to keep them across restarts, or use --store redis:\/\/… \(--store memory chooses memory without this note\)/);
            assert.equal(existsSync(dir), false);
        });
    }
});

/** The machine's own Node.js when it lacks node:sqlite (Debian's Node 20 here). */
function nodeWithoutSqlite(): string | undefined {
    const probe = spawnSync('/usr/bin/node', ['-e', "process.stdout.write(String(Boolean(process.getBuiltinModule?.('node:sqlite'))))"], { encoding: 'utf8' });
    return probe.status === 0 && probe.stdout === 'false' ? '/usr/bin/node' : undefined;
}
