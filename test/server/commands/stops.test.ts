/** Stops that always end: descendants that left the process group, cancel, a clean exit and server shutdown, through a real server. */
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { processRunning } from '../../../server/src/platform/index.js';
import { waitUntil } from '../../support/wait.js';
import { commandsFile, Server } from './commandServer.js';
import { onlyOn, posixOnly } from '../../support/platforms.js';

const node = process.execPath;
const setsid = resolve(__dirname, '../fixtures/commands/setsid.js');

/** Pings the server back to back, each once the last is answered, until `done` settles; how many were answered. */
async function pingsWhile(server: Server, done: Promise<unknown>): Promise<number> {
    let settled = false;
    void done.then(
        () => (settled = true),
        () => (settled = true),
    );
    let answered = 0;
    while (!settled) {
        await server.client.ping();
        answered++;
    }
    return answered;
}

// Once the leader has exited, Linux finds what it left by the run's marker in /proc/<pid>/environ and
// Windows by the dead leader's id, which its children keep; macOS's ps shows neither (the child's parent
// is now launchd), so there a descendant left behind is found only while its leader runs.
const leftBehind = onlyOn(['linux', 'win32'], 'ps shows no environment and the orphan\'s parent is launchd, so nothing links it to the run');
// Windows finds a child by its parent's id whatever its environment: there it is found, and stopped.
const unfindable = posixOnly('parent links find a child with an empty environment, so it is stopped');

const gone = (pids: number[], what: string) => waitUntil(() => pids.every(pid => !processRunning(pid)), what);

describe('command stops: descendants that left the group', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-stops-')));
    const logDir = mkdtempSync(join(tmpdir(), 'cmd-stops-logs-'));
    const server = new Server();
    const strays: number[] = [];

    before(async () => {
        const file = commandsFile(dir, [
            { name: 'daemon', description: 'Leaves a setsid descendant holding stdout, and waits.', command: [node, setsid, 'hold', 'wait'], killGraceMs: 1000 },
            { name: 'leaves', description: 'Leaves a setsid descendant holding stdout, and exits 0.', command: [node, setsid, 'hold', 'exit'] },
            { name: 'leavesQuiet', description: 'Leaves a setsid descendant with its output redirected, and exits 0.', command: [node, setsid, 'ignore', 'exit'] },
            { name: 'hidden', description: 'Leaves a setsid descendant with an empty environment holding stdout, and exits 0.', command: [node, setsid, 'hold', 'exit', 'clean'] },
        ]);
        await server.open(file, logDir);
    });
    after(async () => {
        for (const pid of strays.filter(processRunning)) {
            process.kill(pid, 'SIGKILL');
        }
        await server.client.close();
        rmSync(dir, { recursive: true, force: true });
        rmSync(logDir, { recursive: true, force: true });
    });

    it('cancel ends although a setsid descendant holds the output pipe, and the descendant is gone', async () => {
        const { taskId, token } = await server.start('daemon');
        const pids = await server.pids(token);
        strays.push(...pids);
        assert.ok(pids.every(processRunning), 'leader and descendant run before the cancel');
        const cancelled = await server.client.experimental.tasks.cancelTask(taskId);
        assert.equal(cancelled.status, 'cancelled');
        assert.deepEqual(pids.filter(processRunning), [], 'neither the leader nor the descendant outlives the cancel');
    });

    it('a leader that exits 0 completes; the descendant it left holding the pipe is stopped', leftBehind, async () => {
        const { taskId, token } = await server.start('leaves');
        const pids = await server.pids(token);
        strays.push(...pids);
        const result = await server.result(taskId);
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
        assert.equal((result.structuredContent as { exitCode: number }).exitCode, 0);
        assert.equal(processRunning(pids[1]!), false, 'the descendant is gone when the result arrives');
    });

    it('a descendant that redirected its output does not survive as an orphan', leftBehind, async () => {
        const { taskId, token } = await server.start('leavesQuiet');
        const pids = await server.pids(token);
        strays.push(...pids);
        await server.result(taskId);
        assert.equal(processRunning(pids[1]!), false);
    });

    it('a descendant nothing can find (it cleared its environment) holds the pipe: the run still ends', unfindable, async () => {
        const { taskId, token } = await server.start('hidden');
        const pids = await server.pids(token);
        strays.push(...pids);
        const result = await server.result(taskId);
        assert.equal((result.structuredContent as { exitCode: number }).exitCode, 0);
        // Not found, so not stopped: what the pipe grace is for. The suite ends it.
        assert.equal(processRunning(pids[1]!), true);
    });
});

describe('command stops: server shutdown', posixOnly('a SIGTERM on Windows ends the server at once (TerminateProcess): no handler runs to stop its tasks'), () => {
    it('a SIGTERM to the server ends it while a task has a setsid descendant holding the pipe; the descendant is gone', async () => {
        const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-shutdown-')));
        const server = new Server();
        const file = commandsFile(dir, [{ name: 'daemon', description: 'Leaves a setsid descendant holding stdout.', command: [node, setsid, 'hold', 'wait'], killGraceMs: 1000 }]);
        await server.open(file, dir);
        let pids: number[] = [];
        try {
            const { token } = await server.start('daemon');
            pids = await server.pids(token);
            const serverPid = server.transport.pid!;
            process.kill(serverPid, 'SIGTERM');
            await gone([serverPid], 'the server to exit');
            await server.log.waitFor(/\[stdio\] stopping \(SIGTERM\)/);
            assert.deepEqual(pids.filter(processRunning), [], 'no process of the task outlives the server');
        } finally {
            for (const pid of pids.filter(processRunning)) {
                process.kill(pid, 'SIGKILL');
            }
            await server.client.close();
            rmSync(dir, { recursive: true, force: true });
        }
    });
});

describe('command stops: many at once', posixOnly('each job is /bin/sh trapping SIGTERM; Windows has neither'), () => {
    it('cancelling 100 jobs that ignore SIGTERM at once stops every one and leaves the server answering meanwhile', async () => {
        const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-many-')));
        const server = new Server();
        // sh ignores SIGTERM, and exec hands that on to sleep: one process per job (whenBusy queue: identical calls each run), stopped only by SIGKILL.
        const deaf = { name: 'deaf', description: 'Ignores SIGTERM.', command: ['/bin/sh', '-c', 'trap "" TERM; echo "ready $$"; exec sleep 1000'], killGraceMs: 1500, whenBusy: 'queue' };
        await server.open(commandsFile(dir, [deaf]), dir, {}, ['--max-command-processes', '100']);
        const pids: number[] = [];
        try {
            const started = await Promise.all(Array.from({ length: 100 }, () => server.start('deaf')));
            pids.push(...(await Promise.all(started.map(({ token }) => server.line(token, /^ready /)))).map(line => Number(line.split(' ')[1])));
            const cancelling = Promise.all(started.map(({ taskId }) => server.client.experimental.tasks.cancelTask(taskId)));
            const stopping = await pingsWhile(server, cancelling);
            assert.ok((await cancelling).every(task => task.status === 'cancelled'));
            assert.deepEqual(pids.filter(processRunning), [], 'every job is gone');
            // A server busy stopping (a scan per stopping task every 20 ms once took seconds) answers few
            // pings in the 1.5 s grace; how fast it answers is the bench's `stops` row, not a test's.
            assert.ok(stopping >= 10, `${stopping} pings answered while the groups stopped`);
        } finally {
            for (const pid of pids.filter(processRunning)) {
                process.kill(pid, 'SIGKILL');
            }
            await server.client.close();
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
