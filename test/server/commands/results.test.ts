/**
 * What a model reads of a command run, through a real server and the SDK client: a failing test
 * in the first half of a long suite is in the first content block and in structuredContent of
 * tasks/result and get_task, each answer under 24 KB; a success answers once, not three times;
 * read_output follows a running job and reads a cancelled one, whose result keeps its digest;
 * only the task's client and the owner read its output.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { processRunning } from '../../../server/src/platform/index.js';
import { connect, LogTail, SERVER_JS, secret, startHttpServer, type Connected, type HttpServer } from '../../support/helpers.js';
import { waitUntil } from '../../support/wait.js';
import { inMemory } from '../../support/serverState.js';

const FIXTURES = resolve(__dirname, '../fixtures/commands');
const node = process.execPath;
const suite = join(FIXTURES, 'suite.js');
/** The bound every answer keeps: a model's context pays for each byte. */
const MAX_ANSWER_BYTES = 24 * 1024;

const suiteParams = { count: { type: 'number', description: 'Tests' }, failAt: { type: 'number', description: 'Which fails (0: none)' } };
const COMMANDS = {
    tools: [
        { name: 'suite', description: 'Runs the test suite.', command: [node, suite, '{count}', '{failAt}'], parameters: suiteParams, expectedDurationMs: 90_000 },
        { name: 'held', description: 'Runs the suite, then waits.', command: [node, suite, '{count}', '{failAt}', 'hold'], parameters: suiteParams, killGraceMs: 2000 },
    ],
};

/** A fresh folder (its real path) holding commands.json with COMMANDS. */
function commandsFolder(prefix: string): { dir: string; file: string } {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    const file = join(dir, 'commands.json');
    writeFileSync(file, JSON.stringify(COMMANDS));
    return { dir, file };
}

/** Wraps a client transport to note the size of each answer, by request id. */
function measure(transport: Transport): Map<unknown, number> {
    const sizes = new Map<unknown, number>();
    const start = transport.start.bind(transport);
    transport.start = async () => {
        const deliver = transport.onmessage!;
        transport.onmessage = (message, extra) => {
            if ('id' in message && ('result' in message || 'error' in message)) {
                sizes.set(message.id, Buffer.byteLength(JSON.stringify(message)));
            }
            deliver(message, extra);
        };
        await start();
    };
    return sizes;
}

type Structured = Record<string, unknown> & { summary?: string; result?: { structuredContent?: Structured; content?: unknown; isError: boolean } };
const textOf = (result: { content: unknown }, i = 0) => ((result.content as { text?: string }[])[i]?.text ?? '') as string;

describe('command results a model can read', () => {
    const { dir, file } = commandsFolder('cmd-results-');
    const client = new Client({ name: 'results-test', version: '1' });
    let sizes: Map<unknown, number>;
    /** The size of the answer to the client's last request (the SDK numbers requests from 0). */
    const lastSize = () => [...sizes.values()].at(-1)!;

    before(async () => {
        const transport = new StdioClientTransport({ command: node, args: [SERVER_JS, '--stdio', ...inMemory(), '--commands', file, '--commands-log-dir', join(dir, 'logs')], stderr: 'pipe' });
        sizes = measure(transport);
        await client.connect(transport);
    });
    after(async () => {
        await client.close();
        rmSync(dir, { recursive: true, force: true });
    });

    const callTool = (name: string, args: Record<string, unknown>) => client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema);

    it('a failing test in the first half of a long suite is in the first content block and structuredContent of tasks/result and get_task, each under 24 KB', async () => {
        const { task } = await client.request({ method: 'tools/call', params: { name: 'suite', arguments: { count: 1200, failAt: 537 }, task: {} } }, CreateTaskResultSchema);
        const result = await client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema);
        const resultBytes = lastSize();
        assert.ok(resultBytes < MAX_ANSWER_BYTES, `tasks/result: ${resultBytes} bytes`);
        assert.equal(result.isError, true);
        const first = textOf(result);
        assert.match(first, /^exit 1 after [\d.]+ s: /, 'Claude Code shows an error as its first block: it says what happened');
        assert.match(first, /538\| not ok 537 - suite case 537/);
        assert.match(first, /Expected values to be strictly equal: 41 !== 42/);
        assert.match(first, /Full log \(1208 lines, [\d.]+ KB\): .*suite-.*\.log; read_output with task_id/);
        const data = result.structuredContent as Structured;
        assert.equal(data.summary, first, 'structuredContent.summary is the same digest');
        assert.equal(data.status, 'failed');
        assert.equal(data.exitCode, 1);
        assert.equal(data.logLines, 1208);
        assert.equal(Object.values(data).filter(value => typeof value === 'string' && value.includes('not ok 537')).length, 1, 'the output once in structuredContent');

        const status = await client.experimental.tasks.getTask(task.taskId);
        assert.match(
            status.statusMessage ?? '',
            /^exit 1 after [\d.]+ s: .*\n1 failing test:\n✖ suite case 537 x+… \(\/src\/parser\.test\.ts:12\)\n {2}Expected values to be strictly equal: 41 !== 42\nTask \S+: read_output /,
            'VS Code shows only this of a failed task: the test, where, why',
        );

        const got = await callTool('get_task', { task_id: task.taskId });
        const gotBytes = lastSize();
        assert.ok(gotBytes < MAX_ANSWER_BYTES, `get_task: ${gotBytes} bytes`);
        assert.match(textOf(got), /^Task \S+ \(suite\) failed: exit 1 after .*\n1 failing test:\n✖ suite case 537 /, 'its first block names the failing test');
        const carried = (got.structuredContent as Structured).result!;
        assert.match(carried.structuredContent!.summary!, /not ok 537/, 'and its structuredContent carries the digest');
        assert.equal(carried.content, undefined, 'not the content too: it would repeat the digest');
        console.log(`# tasks/result ${resultBytes} B, get_task ${gotBytes} B`);
    });

    it('a success with 300 long lines answers once, under 24 KB; the description says how long it takes', async () => {
        const result = await callTool('suite', { count: 300, failAt: 0 });
        const bytes = lastSize();
        assert.ok(bytes < MAX_ANSWER_BYTES, `${bytes} bytes`);
        assert.notEqual(result.isError, true);
        const data = result.structuredContent as Structured;
        assert.match(data.summary!, /^exit 0 in [\d.]+ s: [\s\S]*Last lines:[\s\S]*\| # pass 300\n\d+\| # fail 0\n/, 'Claude Code shows only structuredContent on success: the digest is there');
        assert.equal(textOf(result), data.summary, 'and the content text is the same for hosts that read text');
        const { tools } = await client.listTools();
        assert.match(tools.find(tool => tool.name === 'suite')!.description!, /Usually takes about 1\.5 min\./);
        console.log(`# success of 300 long lines: tools/call ${bytes} B`);
    });

    it('read_output by line: grep numbers lines as from_line reads them, context shows what is around, tail says its lines, follow gives only new matches', async () => {
        const { task } = await client.request({ method: 'tools/call', params: { name: 'suite', arguments: { count: 1200, failAt: 537 }, task: {} } }, CreateTaskResultSchema);
        await client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema);
        const read = async (args: Record<string, unknown>) => textOf(await callTool('read_output', { task_id: task.taskId, ...args }));

        assert.match(await read({ grep: '^not ok' }), /: 1 line\(s\) match \/\^not ok\/\.\n538: not ok 537 - suite case 537/);
        const byLine = await read({ from_line: 537, lines: 3 });
        assert.match(byLine, /^Task \S+ \(suite, failed\): lines 537-539\. More: read_output with from_line 540\.\n537: ok 536 - suite case 536[^\n]*\n538: not ok 537 - suite case 537[^\n]*\n539: /);
        const around = await read({ grep: '^not ok', context: 1 });
        assert.match(around, /\n537- ok 536 [^\n]*\n538: not ok 537 [^\n]*\n539- /, 'the lines around, numbered the same way');
        assert.match(await read({ tail_lines: 2 }), /^Task \S+ \(suite, failed\): lines 1207-1208\.\n/);
        assert.match(await read({ from_line: 5000 }), /: no line 5000: the log has fewer lines\.\n\(nothing new\)$/);

        // follow: from where this client's last read in order ended (none yet: the start), then only what is new.
        assert.match(await read({ grep: '^not ok', follow: true }), /: 1 line\(s\) written since your last read match \/\^not ok\/\.\n538: not ok 537 /);
        assert.match(await read({ grep: '^not ok', follow: true }), /: 0 line\(s\) written since your last read match \/\^not ok\/\.\n\(nothing matched\)$/);

        for (const [args, words] of [
            [{ from_line: 3, grep: 'x' }, /from_line reads by line on its own/],
            [{ lines: 3 }, /lines goes with from_line/],
            [{ context: 2 }, /context goes with grep/],
            [{ grep: 'x', context: 2, tail_lines: 3 }, /context and tail_lines do not go together/],
            [{ follow: true, offset: 0 }, /follow starts where your last read in order ended/],
        ] as const) {
            const refused = await callTool('read_output', { task_id: task.taskId, ...args });
            assert.equal(refused.isError, true, JSON.stringify(args));
            assert.match(textOf(refused), words);
        }
    });

    it('read_output follows a running job and get_task counts its output; a cancelled run keeps its digest and log', async () => {
        const started = await callTool('start_held', { count: 50, failAt: 20 });
        const taskId = (started.structuredContent as { task_id: string }).task_id;
        await waitUntil(async () => /\+?\d+: ready \d+/.test(textOf(await callTool('read_output', { task_id: taskId, grep: '^ready' }))), 'the job says it is ready');

        const running = await callTool('get_task', { task_id: taskId });
        const counted = running.structuredContent as { status: string; output_bytes: number; new_output_bytes: number };
        assert.equal(counted.status, 'working');
        assert.ok(counted.output_bytes > 10_000, `${counted.output_bytes} bytes of output`);
        assert.equal(counted.new_output_bytes, 0, 'read_output just read it all');
        assert.match(textOf(running), /Output so far: [\d.]+ KB, nothing new since your last call \(read_output reads it\)/);

        const firstRead = await callTool('read_output', { task_id: taskId, max_bytes: 2048 });
        assert.match(textOf(firstRead), /^Task \S+ \(held, still running\): bytes 0-\d+ of \d+\. More: read_output with offset \d+\.\nTAP version 13\n/);
        const next = Number(/offset (\d+)/.exec(textOf(firstRead))![1]);
        const secondRead = await callTool('read_output', { task_id: taskId, max_bytes: 2048 });
        assert.match(textOf(secondRead), new RegExp(`: bytes ${next}-`), 'with no offset it goes on from the last read');
        const tail = await callTool('read_output', { task_id: taskId, tail_lines: 2 });
        assert.match(textOf(tail), /\n# fail 1\nready \d+$/);

        await callTool('cancel_task', { task_id: taskId });
        const ended = await callTool('get_task', { task_id: taskId });
        assert.ok(lastSize() < MAX_ANSWER_BYTES);
        const result = (ended.structuredContent as Structured).result!;
        assert.equal((ended.structuredContent as Structured).status, 'cancelled');
        assert.match(textOf(ended, 1), /^Task cancelled: Cancelled by the client\n\nStopped after [\d.]+ s \(SIGTERM\): /, 'the cancelled result says why, then what ran');
        assert.match(textOf(ended, 1), /21\| not ok 20 - suite case 20/, 'with the output digest');
        assert.match(textOf(ended, 1), /Full log \(\d+ lines, [\d.]+ KB\): /, 'and the log');
        assert.equal(result.structuredContent!.status, 'cancelled');

        const afterCancel = await callTool('read_output', { task_id: taskId, grep: 'not ok' });
        assert.match(textOf(afterCancel), /^Task \S+ \(held, cancelled\): 1 line\(s\) match \/not ok\/\.\n21: not ok 20 /);
        const bad = await callTool('read_output', { task_id: taskId, grep: '(' });
        assert.equal(bad.isError, true);
        assert.match(textOf(bad), /grep: Invalid regular expression/);
    });
});

/** Starts `held` in the background and waits until its process says it is ready; returns the task id and the pid. */
async function startHeld(call: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>): Promise<{ taskId: string; pid: number }> {
    const taskId = ((await call('start_held', { count: 5, failAt: 0 })).structuredContent as { task_id: string }).task_id;
    const text = await waitUntil(async () => {
        const read = textOf(await call('read_output', { task_id: taskId, grep: '^ready' }));
        return /: ready \d+/.test(read) ? read : undefined;
    }, 'the job says it is ready');
    return { taskId, pid: Number(/: ready (\d+)/.exec(text)![1]) };
}

describe('with --no-task-tools nothing names read_output (it does not exist)', () => {
    it("a command's description and its digest say where the full log is, not read_output", async () => {
        const { dir, file } = commandsFolder('cmd-no-task-tools-');
        const client = new Client({ name: 'no-task-tools', version: '1' });
        await client.connect(new StdioClientTransport({ command: node, args: [SERVER_JS, '--stdio', ...inMemory(), '--no-task-tools', '--commands', file], stderr: 'pipe' }));
        try {
            const { tools } = await client.listTools();
            assert.ok(!tools.some(tool => tool.name === 'read_output'));
            const suiteTool = tools.find(tool => tool.name === 'suite')!;
            assert.match(suiteTool.description!, /names the full log\./);
            assert.doesNotMatch(suiteTool.description!, /read_output/);
            const { task } = await client.request({ method: 'tools/call', params: { name: 'suite', arguments: { count: 1200, failAt: 537 }, task: {} } }, CreateTaskResultSchema);
            const first = textOf(await client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema));
            assert.match(first, /Full log \(1208 lines, [\d.]+ KB\): .*suite-.*\.log; open it for the rest\./);
            assert.doesNotMatch(first, /read_output/);
        } finally {
            await client.close();
            rmSync(dir, { recursive: true, force: true });
        }
    });
});

describe('background command tasks end with their client', () => {
    it('stdio: the client closing stdin stops the server and the job; the log folder the server made goes too', async () => {
        const { dir, file } = commandsFolder('cmd-stdio-gone-');
        const client = new Client({ name: 'leaving', version: '1' });
        const transport = new StdioClientTransport({ command: node, args: [SERVER_JS, '--stdio', ...inMemory(), '--commands', file], stderr: 'pipe' });
        const log = new LogTail();
        log.attach(transport.stderr as unknown as NodeJS.ReadableStream);
        await client.connect(transport);
        try {
            const logDir = /logs in (\S+)$/.exec(await log.waitFor(/\[commands\] .* logs in /))![1]!;
            const { pid } = await startHeld((name, args) => client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema));
            assert.ok(existsSync(logDir));
            await client.close();
            await waitUntil(() => !processRunning(pid), 'the job gone with its client');
            await waitUntil(() => !existsSync(logDir), 'the log folder removed as the server exits');
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});

describe('read_output over HTTP: the task’s own client and the owner', () => {
    let server: HttpServer;
    const [alice, bob, owner] = [secret(), secret(), secret()];
    const { dir, file } = commandsFolder('cmd-owner-');

    before(async () => {
        server = await startHttpServer(['--token', alice, '--token', bob, '--owner-token', owner, '--commands', file, '--commands-log-dir', join(dir, 'logs')]);
    });
    after(async () => {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
    });

    it('another client cannot read a task’s output; the owner (the editor’s sidebar) can', async () => {
        const [a, b, o] = (await Promise.all([alice, bob, owner].map(token => connect('http', server, { token })))) as [Connected, Connected, Connected];
        try {
            const call = (c: Client, name: string, args: Record<string, unknown>) => c.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema) as Promise<CallToolResult>;
            const taskId = ((await call(a.client, 'start_suite', { count: 10, failAt: 3 })).structuredContent as { task_id: string }).task_id;
            await call(a.client, 'get_task', { task_id: taskId, wait_seconds: 20 });
            const foreign = await call(b.client, 'read_output', { task_id: taskId });
            assert.equal(foreign.isError, true);
            assert.match(textOf(foreign), /Task not found/);
            const owned = await call(o.client, 'read_output', { task_id: taskId, grep: 'not ok' });
            assert.match(textOf(owned), /1 line\(s\) match \/not ok\/\.\n4: not ok 3 /);
        } finally {
            await Promise.all([a, b, o].map(c => c.close()));
        }
    });

    it('HTTP: a session that ends cancels its background job, which keeps its digest for the owner', async () => {
        const [a, o] = (await Promise.all([alice, owner].map(token => connect('http', server, { token })))) as [Connected, Connected];
        try {
            const { taskId, pid } = await startHeld((name, args) => a.client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema));
            await a.close();
            await waitUntil(() => !processRunning(pid), 'the job gone with its session');
            // wait_seconds: its end is recorded just after the process is gone, once the digest is made.
            const seen = await o.client.request({ method: 'tools/call', params: { name: 'get_task', arguments: { task_id: taskId, wait_seconds: 20 } } }, CallToolResultSchema);
            assert.equal((seen.structuredContent as { status: string }).status, 'cancelled');
            assert.match(textOf(seen, 1), /^Task cancelled: .*\n\nStopped after [\d.]+ s \(SIGTERM\): [\s\S]*ready \d+/);
        } finally {
            await o.close();
        }
    });
});
