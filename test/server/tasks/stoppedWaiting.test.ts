/**
 * --stopped-waiting through a real server on HTTP, with a client that sends exactly what VS Code's
 * MCP client sends: a task-augmented tools/call with a progress token, then tasks/get at the
 * task's pollInterval, and, when its chat request is stopped, nothing at all. The owner (the
 * editor's view) sees the task marked after 4 missed polls; with `cancel` the work is stopped after
 * 10 (a declared command's process is gone), with `keep` it runs until the owner cancels it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TASK_INFO_META_KEY, type TaskInfo } from '../../../server/src/contract.js';
import { processRunning } from '../../../server/src/platform/index.js';
import { secret, startHttpServer, type HttpServer } from '../../support/helpers.js';
import { RawHttp, type Msg, type StreamHandle } from '../../support/rawHttp.js';
import { waitUntil } from '../../support/wait.js';
import { commandsFile } from '../commands/commandServer.js';

// Long enough that a loaded machine still polls on time (a poll later than 4 of these marks the task).
const POLL_MS = 250;
/** Holds on until killed, after writing its pid where the test reads it. */
const HOLD = "require('fs').writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 1000);";

const infoOf = (task: Record<string, unknown>) => ((task._meta ?? {}) as Record<string, unknown>)[TASK_INFO_META_KEY] as TaskInfo | undefined;

interface Setup {
    server: HttpServer;
    client: RawHttp;
    owner: RawHttp;
    stream: StreamHandle;
    /** Every status notification the owner got, as sent. */
    seen: Record<string, unknown>[];
    pidFile: string;
    close(): Promise<void>;
}

async function setup(action: 'keep' | 'cancel'): Promise<Setup> {
    const dir = mkdtempSync(join(tmpdir(), 'stopped-waiting-'));
    const pidFile = join(dir, 'pid');
    const file = commandsFile(dir, [{ name: 'hold', description: 'Holds on until stopped.', command: [process.execPath, '-e', HOLD, pidFile] }]);
    const token = secret();
    const ownerToken = secret();
    const server = await startHttpServer([
        '--token', token, '--owner-token', ownerToken, '--poll-interval', String(POLL_MS), '--stopped-waiting', action,
        '--commands', file, '--commands-log-dir', join(dir, 'logs'), '--no-demo-tools',
    ]);
    const client = new RawHttp(server.url, { authorization: `Bearer ${token}` });
    await client.initialize({ name: 'Visual Studio Code' });
    const owner = new RawHttp(server.url, { authorization: `Bearer ${ownerToken}` });
    await owner.initialize({ name: 'owner' });
    const seen: Record<string, unknown>[] = [];
    const stream = await owner.openStream((message: Msg) => {
        if (message.method === 'notifications/tasks/status' && message.params) {
            seen.push(message.params);
        }
    });
    return {
        server, client, owner, stream, seen, pidFile,
        close: async () => {
            stream.close();
            await server.stop();
            rmSync(dir, { recursive: true, force: true });
        },
    };
}

/** VS Code's call: `task: {}` (no ttl) and a progress token in `_meta`. */
async function callAsVsCode(client: RawHttp): Promise<string> {
    const created = await client.result('tools/call', { name: 'hold', arguments: {}, task: {}, _meta: { progressToken: 'vscode-progress-1' } });
    return (created.task as { taskId: string }).taskId;
}

/** Polls as VS Code does, every pollInterval, `times` times; the task must stay unmarked meanwhile. */
async function pollAsVsCode(s: Setup, taskId: string, times: number): Promise<void> {
    for (let i = 0; i < times; i++) {
        const task = await s.client.result('tasks/get', { taskId });
        assert.equal(task.status, 'working');
        await new Promise(resolve => setTimeout(resolve, POLL_MS));
    }
}

/** A setup the enclosing describe starts in its before hook and closes in its after hook; read it inside a test. */
function setupPerSuite(action: 'keep' | 'cancel'): () => Setup {
    let s: Setup | undefined;
    before(async () => (s = await setup(action)));
    after(async () => s?.close());
    return () => s!;
}

/** Starts the command as VS Code would, waits for its process, and polls on time ten times. */
async function startPolledOnTime(s: Setup): Promise<{ taskId: string; pid: number }> {
    const taskId = await callAsVsCode(s.client);
    const pid = Number(await waitUntil(() => existsSync(s.pidFile) && readFileSync(s.pidFile, 'utf8'), 'the command to start'));
    await pollAsVsCode(s, taskId, 10);
    return { taskId, pid };
}

const ownerGet = (s: Setup, taskId: string) => s.owner.result('tasks/get', { taskId });

describe('a client that stops polling (what VS Code sends when a chat request is stopped: nothing)', () => {
    describe('--stopped-waiting cancel', () => {
        const setupOf = setupPerSuite('cancel');

        it('marks the task, then cancels it after more missed polls, saying why, and stops its process', async () => {
            const s = setupOf();
            const { taskId, pid } = await startPolledOnTime(s);
            assert.equal((await ownerGet(s, taskId)).status, 'working', 'a client polling on time keeps it');
            // The client goes silent: no tasks/get, no tasks/cancel, no notifications/cancelled.
            const ended = await waitUntil(async () => {
                const task = await ownerGet(s, taskId);
                return task.status === 'cancelled' ? task : undefined;
            }, 'the task cancelled once its client stopped polling', { everyMs: 50 });
            assert.match(String(ended.statusMessage), /stopped following it \(no tasks\/get or tasks\/result for 2.5 s\)/);
            assert.ok(s.seen.some(task => task.taskId === taskId && task.status === 'working' && infoOf(task)?.stoppedWaitingAt), 'the owner saw it marked before the cancel');
            await waitUntil(() => !processRunning(pid), "the command's process to be stopped");
        });
    });

    describe('--stopped-waiting keep', () => {
        const setupOf = setupPerSuite('keep');

        it("marks the task in the owner's view at once, keeps it running, clears the mark when polls resume, and leaves the cancel to the owner", async () => {
            const s = setupOf();
            const { taskId, pid } = await startPolledOnTime(s);
            assert.equal(infoOf(await ownerGet(s, taskId))?.stoppedWaitingAt, undefined, 'not marked while its client polls');

            // The owner's latest word on the task, not the first mark: on a loaded machine one poll of the
            // ten can come late enough to mark the task, and the next poll clears that mark again.
            const latest = () => s.seen.filter(task => task.taskId === taskId).at(-1);
            const marked = await waitUntil(() => (infoOf(latest() ?? {})?.stoppedWaitingAt ? latest() : undefined), "the owner told that the task's client stopped waiting");
            assert.equal(marked.status, 'working');
            assert.ok(!Number.isNaN(Date.parse(infoOf(marked)!.stoppedWaitingAt!)));
            assert.equal(infoOf(await ownerGet(s, taskId))?.stoppedWaitingAt, infoOf(marked)!.stoppedWaitingAt, "the owner's tasks/get carries the same mark");
            assert.ok(processRunning(pid), 'the work keeps running');

            const before = s.seen.length;
            await s.client.result('tasks/get', { taskId });
            const back = await waitUntil(() => s.seen.slice(before).find(task => task.taskId === taskId), 'the owner told that the client polls again');
            assert.equal(infoOf(back)?.stoppedWaitingAt, undefined);

            const cancelled = await s.owner.result('tasks/cancel', { taskId });
            assert.equal(cancelled.status, 'cancelled');
            await waitUntil(() => !processRunning(pid), "the command's process to be stopped by the owner's cancel");
        });
    });
});
