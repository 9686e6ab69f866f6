/**
 * Command tasks that outlive their server (--store sqlite, Linux and macOS): started, the server
 * SIGKILLed or stopped, the command still running; the next server on the same data folder takes
 * it over and reports its real exit status and every line of its output, before and after; a
 * cancel from that server stops it; with nobody taking it over within the window it is stopped;
 * a server without its command declared stops it and fails the task in words.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { processRunning } from '../../../server/src/platform/index.js';
import { posixOnly } from '../../support/platforms.js';
import { waitUntil } from '../../support/wait.js';
import { commandsFile, Server } from './commandServer.js';

const node = process.execPath;

interface Structured {
    status: string;
    exitCode: number | null;
    signal?: string | null;
    logLines: number;
    logPath: string;
    summary: string;
}

const dirs: string[] = [];
const servers: Server[] = [];

after(async () => {
    for (const server of servers) {
        await server.client.close().catch(() => undefined);
    }
    for (const dir of process.env.KEEP_DIRS ? [] : dirs) {
        rmSync(dir, { recursive: true, force: true });
    }
});

/** A folder with a suite that prints 50 lines, writes its pid, waits for `go`, prints 50 more and exits 3. */
function setUp(): { dir: string; data: string; file: string; pidFile: string; go: string } {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-outlive-')));
    dirs.push(dir);
    const pidFile = join(dir, 'pid');
    const go = join(dir, 'go');
    const script = join(dir, 'suite.js');
    writeFileSync(
        script,
        `const fs = require('node:fs');\n` +
            `for (let n = 1; n <= 50; n++) console.log('ok ' + n + ' - before');\n` +
            `fs.writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\n` +
            `const wait = setInterval(() => {\n` +
            `  if (!fs.existsSync(${JSON.stringify(go)})) return;\n` +
            `  clearInterval(wait);\n` +
            `  for (let n = 51; n <= 99; n++) console.log('ok ' + n + ' - after');\n` +
            `  console.log('not ok 100 - adds numbers');\n` +
            `  process.exit(3);\n` +
            `}, 20);\n`,
    );
    const file = commandsFile(dir, [{ name: 'suite', description: 'A test suite that waits for a file half way.', command: [node, script] }]);
    return { dir, data: join(dir, 'data'), file, pidFile, go };
}

async function serve(file: string, data: string, args: string[] = []): Promise<Server> {
    const server = new Server();
    servers.push(server);
    await server.open(file, undefined, {}, ['--store', 'sqlite', '--data-dir', data, ...args]);
    return server;
}

async function status(server: Server, taskId: string): Promise<{ status: string; statusMessage?: string }> {
    return server.client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);
}

async function untilStatus(server: Server, taskId: string, wanted: string): Promise<{ status: string; statusMessage?: string }> {
    return waitUntil(
        async () => {
            const task = await status(server, taskId);
            return task.status === wanted ? task : undefined;
        },
        `task ${taskId} to be ${wanted}`,
        { timeoutMs: 20_000, everyMs: 50 },
    );
}

function commandPid(pidFile: string): Promise<number> {
    return waitUntil(() => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) || undefined : undefined), 'the command to write its pid', { timeoutMs: 20_000 });
}

/** Ends the server process: SIGKILL, or a clean stop (stdin closed, as a host closing it does). */
async function endServer(server: Server, how: 'SIGKILL' | 'clean'): Promise<void> {
    const pid = server.transport.pid!;
    if (how === 'SIGKILL') {
        process.kill(pid, 'SIGKILL');
    } else {
        await server.client.close();
    }
    await waitUntil(() => !processRunning(pid) || undefined, `server ${pid} to end`, { timeoutMs: 20_000 });
}

describe('command tasks outlive their server (--store sqlite)', posixOnly('on Windows command tasks stop with their server (no keeper there)'), () => {
    for (const how of ['SIGKILL', 'clean'] as const) {
        it(`a new server takes over a command whose server ended (${how}): its real exit status and every line`, async () => {
            const { file, data, pidFile, go } = setUp();
            const first = await serve(file, data);
            const { taskId } = await first.start('suite');
            const pid = await commandPid(pidFile);
            await endServer(first, how);
            assert.ok(processRunning(pid), 'the command runs on without its server');
            // What waits for the next server is this user's alone: the job, and the raw output (secrets not yet hidden).
            const job = JSON.parse(readFileSync(join(data, 'jobs', `${taskId}.json`), 'utf8')) as { capture: string; argv: string[] };
            assert.equal(statSync(join(data, 'jobs', `${taskId}.json`)).mode & 0o777, 0o600);
            assert.equal(statSync(job.capture).mode & 0o777, 0o600);
            assert.match(readFileSync(job.capture, 'utf8'), /^ok 1 - before\n/);

            const second = await serve(file, data);
            assert.equal((await status(second, taskId)).status, 'working', 'taken over, still running');
            assert.match(second.log.lines.join('\n'), /\[commands\] took over the run of suite \(task /);
            writeFileSync(go, '');
            const result = await second.result(taskId);
            const structured = result.structuredContent as unknown as Structured;
            assert.equal(structured.exitCode, 3, 'the exit status the command gave, recovered from its keeper');
            assert.equal(structured.status, 'failed');
            assert.equal(structured.logLines, 100, 'every line, before and after the restart');
            const log = readFileSync(structured.logPath, 'utf8');
            assert.match(log, /^ok 1 - before\n/);
            assert.match(log, /\nok 50 - before\nok 51 - after\n/);
            assert.match(log, /\nnot ok 100 - adds numbers\n$/);
            assert.match(structured.summary, /not ok 100 - adds numbers/);
            assert.equal((await status(second, taskId)).status, 'failed');
            assert.equal(processRunning(pid), false);
        });
    }

    it('a cancel from the server that took it over stops the command', async () => {
        const { file, data, pidFile } = setUp();
        const first = await serve(file, data);
        const { taskId } = await first.start('suite');
        const pid = await commandPid(pidFile);
        await endServer(first, 'SIGKILL');

        const second = await serve(file, data);
        await second.client.request({ method: 'tasks/cancel', params: { taskId } }, GetTaskResultSchema);
        await waitUntil(() => !processRunning(pid) || undefined, 'the command to be stopped', { timeoutMs: 20_000 });
        assert.equal((await untilStatus(second, taskId, 'cancelled')).status, 'cancelled');
    });

    it('stops a command no server takes over within the window, and the next server says so', async () => {
        const { file, data, pidFile } = setUp();
        const first = await serve(file, data, ['--commands-reattach-window', '1s']);
        const { taskId } = await first.start('suite');
        const pid = await commandPid(pidFile);
        await endServer(first, 'SIGKILL');
        // Nobody took it over: its keeper stops it once the window has passed.
        await waitUntil(() => !processRunning(pid) || undefined, 'the abandoned command to be stopped', { timeoutMs: 20_000 });

        const second = await serve(file, data);
        const result = await second.result(taskId);
        const structured = result.structuredContent as unknown as Structured;
        assert.equal(structured.status, 'failed');
        assert.equal(structured.exitCode, null);
        assert.equal(structured.logLines, 51, 'the 50 lines it printed, and the note');
        assert.match(readFileSync(structured.logPath, 'utf8'), /\n\[mcp-tasks\] stopped: no MCP Tasks server took this run over within 1 s after the one that started it ended\n$/);
    });

    it("a run whose files were removed while no server followed it is stopped, and its task fails in words", async () => {
        const { file, data, pidFile } = setUp();
        const first = await serve(file, data);
        const { taskId } = await first.start('suite');
        const pid = await commandPid(pidFile);
        await endServer(first, 'SIGKILL');
        const job = JSON.parse(readFileSync(join(data, 'jobs', `${taskId}.json`), 'utf8')) as { log: string };
        rmSync(dirname(job.log), { recursive: true, force: true });

        const second = await serve(file, data);
        const task = await untilStatus(second, taskId, 'failed');
        // Hosts that read only structuredContent (Codex, Claude Code) get the same words.
        const structured = (await second.result(taskId)).structuredContent as unknown as Structured;
        assert.equal(structured.summary, task.statusMessage);
        assert.equal(structured.status, 'failed');
        assert.match(task.statusMessage ?? '', /^The MCP Tasks server restarted, and the files of this run of suite \(in .*\) were removed meanwhile \(.*\), so it was stopped: its output and exit status cannot be known\. Call suite again to run it\.$/);
        await waitUntil(() => !processRunning(pid) || undefined, 'the command to be stopped', { timeoutMs: 20_000 });
    });

    it('a server whose commands file no longer declares the command stops it and fails the task in words', async () => {
        const { dir, file, data, pidFile } = setUp();
        const first = await serve(file, data);
        const { taskId } = await first.start('suite');
        const pid = await commandPid(pidFile);
        await endServer(first, 'SIGKILL');

        const otherDir = join(dir, 'other');
        mkdirSync(otherDir);
        const other = commandsFile(otherDir, [{ name: 'other', description: 'Another tool.', command: [node, '-e', ''] }]);
        const second = await serve(other, data);
        const task = await untilStatus(second, taskId, 'failed');
        assert.match(task.statusMessage ?? '', /no longer declares suite, so the run started before the restart was stopped\. Call suite again once it is declared/);
        assert.equal(((await second.result(taskId)).structuredContent as unknown as Structured).summary, task.statusMessage);
        await waitUntil(() => !processRunning(pid) || undefined, 'the command to be stopped', { timeoutMs: 20_000 });
    });
});
