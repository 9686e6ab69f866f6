import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SERVER_JS, startHttpServer } from '../support/helpers.js';
import { exitWithin, runCli } from '../support/rawHelpers.js';
import { RawHttp } from '../support/rawHttp.js';
import { Changes, Feed, waitUntil } from '../support/wait.js';
import { inMemory } from '../support/serverState.js';

type Message = Record<string, unknown>;

const FLAGS = [
    '--stdio',
    '--http',
    '--host',
    '--port',
    '--token',
    '--owner-token',
    '--default-ttl',
    '--max-ttl',
    '--abandon-after',
    '--no-task-tools',
    '--no-demo-tools',
    '--max-tasks-per-client',
    '--log-level',
    '--poll-interval',
    '--session-idle-timeout',
    '--body-limit',
    '--allow-remote',
];

/** A JSON-RPC 2.0 request, notification or response, and nothing else. */
function isJsonRpc(value: unknown): boolean {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return false;
    }
    const m = value as Message;
    if (m.jsonrpc !== '2.0') {
        return false;
    }
    if (typeof m.method === 'string') {
        return !('result' in m) && !('error' in m);
    }
    return 'id' in m && ('result' in m) !== ('error' in m);
}

/** The server in stdio mode, driven line by line, with every stdout line and stderr line kept. */
class StdioPeer {
    private readonly out = new Feed<string>();
    private readonly err = new Feed<string>();

    constructor(readonly proc: ChildProcessWithoutNullStreams) {
        createInterface({ input: proc.stdout }).on('line', line => this.out.push(line));
        createInterface({ input: proc.stderr }).on('line', line => this.err.push(line));
    }

    static start(args: string[] = []): StdioPeer {
        return new StdioPeer(spawn(process.execPath, [SERVER_JS, '--stdio', ...args], { stdio: ['pipe', 'pipe', 'pipe'] }));
    }

    get stdout(): string[] {
        return this.out.items;
    }

    get stderr(): string[] {
        return this.err.items;
    }

    get messages(): Message[] {
        return this.stdout.map(line => JSON.parse(line) as Message);
    }

    send(message: Message | string): void {
        this.proc.stdin.write((typeof message === 'string' ? message : JSON.stringify(message)) + '\n');
    }

    /** The first message (already seen or future) that satisfies `match`. */
    async waitFor(match: (m: Message) => boolean, what: string): Promise<Message> {
        const line = await this.out.waitFor(l => match(JSON.parse(l) as Message), what);
        return JSON.parse(line) as Message;
    }

    /** The first stderr line (already seen or future) that contains `text`. */
    waitForLog(text: string): Promise<string> {
        return this.err.waitFor(line => line.includes(text), `a log line with ${text}`);
    }

    async call(id: number, method: string, params?: Message): Promise<Message> {
        this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
        return this.waitFor(m => m.id === id && ('result' in m || 'error' in m), `response ${id} (${method})`);
    }

    async initialize(): Promise<void> {
        const response = await this.call(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cli-test', version: '1' } });
        assert.ok(response.result, JSON.stringify(response));
        this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    }

    async startTask(id: number, seconds: number, label: string, meta?: Message): Promise<string> {
        const response = await this.call(id, 'tools/call', { name: 'slow_compute', arguments: { seconds, label }, task: {}, ...(meta ? { _meta: meta } : {}) });
        return ((response.result as Message).task as { taskId: string }).taskId;
    }

    statusOf(taskId: string, status: string): (m: Message) => boolean {
        return m => m.method === 'notifications/tasks/status' && (m.params as Message).taskId === taskId && (m.params as Message).status === status;
    }

    kill(): void {
        if (this.proc.exitCode === null && this.proc.signalCode === null) {
            this.proc.kill('SIGKILL');
        }
    }
}

describe('command line', () => {
    it('prints help that names every flag, and exits 0', async () => {
        for (const flag of ['--help', '-h']) {
            const run = await runCli([flag]);
            assert.equal(run.code, 0);
            assert.equal(run.stderr, '');
            assert.match(run.stdout, /^Usage: mcp-tasks/);
            for (const name of FLAGS) {
                assert.ok(new RegExp(`^\\s+${name}\\b`, 'm').test(run.stdout), `${flag} output documents ${name}`);
            }
        }
    });

    it('exits 2 on an unknown flag or a bad value, with the reason on stderr and nothing on stdout', async () => {
        const cases: [string[], RegExp][] = [
            [['--bogus'], /--bogus/],
            [['--http', '--port', 'eighty'], /--port/],
            [['--default-ttl', '5 days'], /--default-ttl: "5 days" is not a duration/],
            [['--stdio', '--http'], /Choose one transport/],
            [['--abandon-after', '2s'], /--abandon-after must be at least 5 poll intervals \(5s\)/],
            [['--abandon-after', '1m', '--store', 'redis://127.0.0.1:6379'], /--abandon-after is not supported with --store redis/],
        ];
        for (const [args, reason] of cases) {
            const run = await runCli(args);
            assert.equal(run.code, 2, args.join(' '));
            assert.equal(run.stdout, '', args.join(' '));
            assert.match(run.stderr, reason);
            assert.match(run.stderr, /--help/);
        }
    });

    it('prints exactly one JSON line with the URL in --http mode', async () => {
        const proc = spawn(process.execPath, [SERVER_JS, '--http', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
        const closed = once(proc, 'close');
        try {
            let all = '';
            const arrived = new Changes();
            proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
                all += chunk;
                arrived.notify();
            });
            proc.stderr.resume();
            await waitUntil(() => all.includes('\n'), 'the URL line', { on: arrived });
            const url = (JSON.parse(all) as { url: string }).url;
            const raw = new RawHttp(url);
            await raw.initialize();
            const greeting = await raw.call('tools/call', { name: 'greet', arguments: { name: 'x' } });
            assert.ok(greeting.result);
            proc.kill('SIGTERM');
            await closed;
            assert.equal(proc.exitCode, 0);
            assert.match(all, /^\{"url":"http:\/\/127\.0\.0\.1:\d+\/mcp"\}\n$/);
        } finally {
            proc.kill('SIGKILL');
        }
    });

    it('writes only JSON-RPC frames to stdout in stdio mode, and logs to stderr', async () => {
        const peer = StdioPeer.start(['--log-level', 'debug']);
        try {
            await peer.initialize();
            const taskId = await peer.startTask(1, 2, 'frames', { progressToken: 'p-frames' });
            const result = await peer.call(2, 'tasks/result', { taskId });
            assert.match(JSON.stringify(result.result), /Computation \\"frames\\" completed/);
            const bad = await peer.call(3, 'tools/call', { name: 'greet', arguments: { name: 42 } });
            assert.equal((bad.result as { isError?: boolean }).isError, true);
            assert.match(JSON.stringify(bad.result), /Invalid arguments for tool greet: name: /);
            peer.send('this is not json');
            await peer.waitFor(m => (m.error as { code?: number } | undefined)?.code === -32700, 'a parse error');

            const progress = peer.messages.filter(m => m.method === 'notifications/progress');
            assert.deepEqual(
                progress.map(m => [(m.params as Message).progressToken, (m.params as Message).progress]),
                [
                    ['p-frames', 1],
                    ['p-frames', 2],
                ],
            );
            await peer.waitFor(peer.statusOf(taskId, 'completed'), 'a completed status notification');

            const exited = exitWithin(peer.proc);
            peer.proc.stdin.end();
            assert.deepEqual(await exited, { code: 0, signal: null });
            assert.ok(peer.stdout.length >= 8, `stdout had ${peer.stdout.length} lines`);
            for (const line of peer.stdout) {
                assert.ok(isJsonRpc(JSON.parse(line)), `not a JSON-RPC message on stdout: ${line}`);
            }
            assert.ok(peer.stderr.some(line => line.includes('[stdio] MCP Tasks server ready')));
            for (const line of peer.stderr) {
                assert.match(line, /^\d{4}-\d\d-\d\dT\S+Z (ERROR|WARN |INFO |DEBUG) /, 'stderr carries only log lines');
            }
        } finally {
            peer.kill();
        }
    });
});

const DEMO_TOOLS = ['greet', 'slow_compute', 'failing_job', 'confirm_delete', 'write_haiku', 'external_job', 'deploy', 'deploy_step'];

/** The tool names and instructions a stdio server started with `args` offers. */
async function offered(args: string[]): Promise<{ names: string[]; instructions: string }> {
    const client = new Client({ name: 'demo-flag-test', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER_JS, '--stdio', ...inMemory(args), ...args], stderr: 'pipe' }));
    try {
        const { tools } = await client.listTools();
        return { names: tools.map(tool => tool.name).sort(), instructions: client.getInstructions() ?? '' };
    } finally {
        await client.close();
    }
}

describe('--no-demo-tools', () => {
    it('serves every demo tool by default, and none with the flag (task tools for nothing but get/cancel/list)', async () => {
        const plain = await offered([]);
        for (const name of DEMO_TOOLS.filter(name => name !== 'deploy_step')) {
            assert.ok(plain.names.includes(name), `${name} is served by default`);
        }
        assert.match(plain.instructions, /demonstrations/);
        // Written for a model, which calls tools: the task tools by name, no protocol method it cannot call.
        assert.match(plain.instructions, /call start_<tool> with the same arguments .* then get_task with that task_id/);
        assert.doesNotMatch(plain.instructions, /tasks\/(get|result|list|cancel)/);
        const noTaskTools = await offered(['--no-task-tools']);
        assert.doesNotMatch(noTaskTools.instructions, /start_|get_task|tasks\//);

        const bare = await offered(['--no-demo-tools']);
        assert.deepEqual(bare.names, ['cancel_task', 'get_task', 'list_tasks']);
        assert.doesNotMatch(bare.instructions, /greet|slow_compute|deploy|demonstration/);
    });

    it('with --commands serves only the commands and their task tools', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-nodemo-'));
        const file = join(dir, 'commands.json');
        const script = resolve(__dirname, './fixtures/commands/print.js');
        writeFileSync(file, JSON.stringify({ tools: [{ name: 'print', description: 'Prints lines.', command: [process.execPath, script] }] }));
        try {
            const { names } = await offered(['--no-demo-tools', '--commands', file, '--commands-log-dir', join(dir, 'logs')]);
            assert.deepEqual(names, ['cancel_task', 'get_task', 'list_tasks', 'print', 'read_output', 'start_print']);
            for (const name of DEMO_TOOLS) {
                assert.ok(!names.includes(name) && !names.includes(`start_${name}`), `${name} is not served`);
            }
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});

describe('shutdown', () => {
    it('cancels running tasks with "Server shutting down" on SIGTERM (HTTP), then exits 0', async () => {
        const server = await startHttpServer();
        try {
            const raw = new RawHttp(server.url);
            await raw.initialize();
            const pushed = new Feed<Message>();
            const stream = await raw.openStream(m => pushed.push(m));
            assert.equal(stream.status, 200);
            const ids: string[] = [];
            for (const id of [1, 2]) {
                const created = await raw.call('tools/call', { name: 'slow_compute', arguments: { seconds: 30, label: `term-${id}` }, task: {} });
                ids.push(((created.result as Message).task as { taskId: string }).taskId);
            }

            const exited = exitWithin(server.proc);
            server.proc.kill('SIGTERM');
            assert.deepEqual(await exited, { code: 0, signal: null });

            const statuses = await pushed.until(items => {
                const cancelled = items.filter(m => m.method === 'notifications/tasks/status' && (m.params as Message).status === 'cancelled');
                return cancelled.length === ids.length ? cancelled : undefined;
            }, 'cancelled status notifications for both tasks');
            assert.deepEqual(statuses.map(m => (m.params as Message).taskId).sort(), [...ids].sort());
            for (const m of statuses) {
                assert.equal((m.params as Message).statusMessage, 'Server shutting down');
            }
            assert.ok(server.log.lines.some(line => line.includes('[http] stopping (SIGTERM)')));
            stream.close();
        } finally {
            await server.stop('SIGKILL');
        }
    });

    it('cancels running tasks on SIGINT in stdio mode and tells the client, then exits 0', async () => {
        const peer = StdioPeer.start();
        try {
            await peer.initialize();
            const taskId = await peer.startTask(1, 30, 'sigint');
            const exited = exitWithin(peer.proc);
            peer.proc.kill('SIGINT');
            assert.deepEqual(await exited, { code: 0, signal: null });
            const status = await peer.waitFor(peer.statusOf(taskId, 'cancelled'), 'a cancelled status notification');
            assert.equal((status.params as Message).statusMessage, 'Server shutting down');
            assert.ok(peer.stderr.some(line => line.includes('[stdio] stopping (SIGINT)')));
            assert.ok(peer.stderr.some(line => line.includes('[slow_compute] cancelled "sigint" at 0/30')));
        } finally {
            peer.kill();
        }
    });

    it('cancels running tasks and exits 0 when stdin closes', async () => {
        const peer = StdioPeer.start();
        try {
            await peer.initialize();
            await peer.startTask(1, 30, 'eof');
            const exited = exitWithin(peer.proc);
            peer.proc.stdin.end();
            assert.deepEqual(await exited, { code: 0, signal: null });
            await peer.waitForLog('[slow_compute] cancelled "eof" at 0/30');
            assert.ok(peer.stderr.some(line => line.includes('[stdio] stopping (end of input)')));
        } finally {
            peer.kill();
        }
    });
});
