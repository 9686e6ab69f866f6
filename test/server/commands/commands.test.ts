/** Command tools: real processes started, watched, failed, timed out and cancelled through a real server and SDK client. */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
    CallToolResultSchema,
    CreateTaskResultSchema,
    ElicitRequestSchema,
    type ElicitResult,
    ProgressNotificationSchema,
    ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { processRunning } from '../../../server/src/platform/index.js';
import { LogTail, SERVER_JS } from '../../support/helpers.js';
import { Feed } from '../../support/wait.js';
import { inMemory } from '../../support/serverState.js';
import { posixOnly } from '../../support/platforms.js';

const FIXTURES = resolve(__dirname, '../fixtures/commands');
const node = process.execPath;
const script = (name: string) => join(FIXTURES, name);
const SECRET = 'sk-test-9f8e7d6c5b4a';
/** The one answer that is consent to run a confirmed command. */
const RUN: ElicitResult = { action: 'accept', content: { run: 'run' } };

function commandsJson(extra: object[] = []): string {
    return JSON.stringify({
        tools: [
            { name: 'print', description: 'Prints lines.', command: [node, script('print.js'), '{count}'], parameters: { count: { type: 'number', description: 'How many', optional: true } }, env: { API_TOKEN: SECRET } },
            { name: 'fail', description: 'Fails.', command: [node, script('fail.js')] },
            { name: 'dots', description: 'Prints a step, then punctuation.', command: [node, '-e', "console.log('step one'); console.log('  ...'); console.log('-----'); console.log('');"] },
            { name: 'sleepy', description: 'Sleeps.', command: [node, script('sleep.js')] },
            // Long enough for node to start and print its pid first on a loaded machine (300 ms was not, in a CI run under load).
            { name: 'slow', description: 'Times out.', command: [node, script('sleep.js')], timeoutMs: 3000 },
            { name: 'stubborn', description: 'Ignores SIGTERM.', command: [node, script('stubborn.js')], killGraceMs: 200 },
            { name: 'tree', description: 'Starts grandchildren.', command: [node, script('tree.js')] },
            { name: 'missing', description: 'No such program.', command: ['./no-such-program-here'] },
            { name: 'echo', description: 'Echoes argv.', command: [node, script('argv.js'), '{text}', 'end'], parameters: { text: { type: 'string', description: 'Any text' } } },
            { name: 'guarded', description: 'Asks first.', command: [node, script('argv.js'), '{text}'], parameters: { text: { type: 'string', description: 'Any text' } }, confirm: true },
            ...extra,
        ],
    });
}

interface Progress {
    progressToken: string | number;
    progress: number;
    message?: string;
}

class Peer {
    readonly client = new Client({ name: 'commands-test', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    readonly log = new LogTail();
    readonly progress = new Feed<Progress>();
    readonly listChanged = new Feed<number>();
    answer: ElicitResult = RUN;
    readonly schemas: unknown[] = [];
    readonly asked: string[] = [];
    private next = 0;

    async connect(file: string, logDir: string): Promise<void> {
        const transport = new StdioClientTransport({ command: node, args: [SERVER_JS, '--stdio', ...inMemory(), '--commands', file, '--commands-log-dir', logDir], stderr: 'pipe' });
        this.log.attach(transport.stderr as unknown as NodeJS.ReadableStream);
        this.client.setNotificationHandler(ProgressNotificationSchema, n => this.progress.push(n.params as Progress));
        this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.listChanged.push(1));
        this.client.setRequestHandler(ElicitRequestSchema, request => {
            this.asked.push(request.params.message);
            this.schemas.push(request.params.mode === 'form' || request.params.mode === undefined ? request.params.requestedSchema : undefined);
            return this.answer;
        });
        await this.client.connect(transport);
    }

    /** Starts a tool as a task with a fresh progress token; returns the task id and token. */
    async start(name: string, args: Record<string, unknown> = {}): Promise<{ taskId: string; token: string }> {
        const token = `p${++this.next}`;
        const { task } = await this.client.request({ method: 'tools/call', params: { name, arguments: args, task: {}, _meta: { progressToken: token } } }, CreateTaskResultSchema);
        return { taskId: task.taskId, token };
    }

    result(taskId: string) {
        return this.client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
    }

    status(taskId: string) {
        return this.client.experimental.tasks.getTask(taskId);
    }

    line(token: string, pattern: RegExp): Promise<string> {
        return this.progress.waitFor(p => p.progressToken === token && pattern.test(p.message ?? ''), `progress ${pattern} on ${token}`).then(p => p.message!);
    }
}

describe('command tools', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-test-')));
    const file = join(dir, 'commands.json');
    const logDir = mkdtempSync(join(tmpdir(), 'cmd-logs-'));
    const peer = new Peer();

    before(async () => {
        writeFileSync(file, commandsJson());
        await peer.connect(file, logDir);
    });
    after(async () => {
        await peer.client.close();
        for (const path of [dir, logDir]) {
            rmSync(path, { recursive: true, force: true });
        }
    });

    it('lists the declared commands as task-capable tools with their parameters', async () => {
        const { tools } = await peer.client.listTools();
        const echo = tools.find(tool => tool.name === 'echo');
        assert.ok(echo, 'echo is listed');
        assert.deepEqual(echo.inputSchema.required, ['text']);
        assert.equal(echo.execution?.taskSupport, 'optional');
        assert.ok(tools.some(tool => tool.name === 'start_print'), 'a background start tool too');
    });

    it('exit 0 completes with the output digest, exit code and a complete, redacted log file', async () => {
        const { taskId } = await peer.start('print', { count: 3 });
        const result = await peer.result(taskId);
        assert.notEqual(result.isError, true);
        const data = result.structuredContent as { exitCode: number; summary: string; logPath: string; durationMs: number };
        assert.equal(data.exitCode, 0);
        assert.match(data.summary, /line 3\/3/);
        assert.equal((await peer.status(taskId)).status, 'completed');
        const log = readFileSync(data.logPath, 'utf8');
        assert.deepEqual(log.split('\n').filter(l => l.startsWith('line')), ['line 1/3', 'line 2/3', 'line 3/3']);
        assert.match(log, /secret is \*\*\*/);
        assert.ok(!log.includes(SECRET) && !JSON.stringify(result).includes(SECRET), 'the secret reaches neither log nor result');
        assert.ok(!JSON.stringify(peer.progress.items).includes(SECRET), 'nor a progress message');
    });

    it('a non-zero exit fails with the exit code and failing line in the status message', async () => {
        const { taskId } = await peer.start('fail');
        await peer.result(taskId);
        const task = await peer.status(taskId);
        assert.equal(task.status, 'failed');
        assert.match(task.statusMessage ?? '', /^exit 2 after [\d.]+ s: .*fail\.js\n2 tests failed: parser, lexer\nTask (\S+): read_output with task_id "\1" reads the whole output\. Full log: /);
        assert.ok(task.statusMessage!.includes(`Task ${taskId}:`), 'the task named is this one');
    });

    it('a program that does not exist fails with "not found"', async () => {
        const { taskId } = await peer.start('missing');
        await peer.result(taskId);
        const task = await peer.status(taskId);
        assert.equal(task.status, 'failed');
        assert.match(task.statusMessage ?? '', /^not found: \.\/no-such-program-here/);
    });

    it('a timeout kills the process and fails saying so', async () => {
        const { taskId, token } = await peer.start('slow');
        const pid = Number((await peer.line(token, /^ready/)).split(' ')[1]);
        await peer.result(taskId);
        const task = await peer.status(taskId);
        assert.equal(task.status, 'failed');
        assert.match(task.statusMessage ?? '', /^timed out after 3 s/);
        assert.equal(processRunning(pid), false);
    });

    it('cancel stops the process; the task is cancelled once it is gone', async () => {
        const { taskId, token } = await peer.start('sleepy');
        const pid = Number((await peer.line(token, /^ready/)).split(' ')[1]);
        const cancelled = await peer.client.experimental.tasks.cancelTask(taskId);
        assert.equal(cancelled.status, 'cancelled');
        assert.equal(processRunning(pid), false, 'the process is gone when cancel answers');
    });

    it('a process that ignores SIGTERM is killed after the grace period', posixOnly('Windows has no SIGTERM: a stop ends the tree at once (taskkill /T /F)'), async () => {
        const { taskId, token } = await peer.start('stubborn');
        const pid = Number((await peer.line(token, /^ready/)).split(' ')[1]);
        await peer.client.experimental.tasks.cancelTask(taskId);
        assert.equal(processRunning(pid), false);
        const log = readdirSync(logDir).find(name => name.startsWith(`stubborn-${taskId}-`))!;
        assert.match(readFileSync(join(logDir, log), 'utf8'), /ignoring SIGTERM/, 'SIGTERM came first and was ignored');
    });

    it('cancel takes the grandchildren down too', async () => {
        const { taskId, token } = await peer.start('tree');
        const pids = JSON.parse((await peer.line(token, /^pids /)).slice(5)) as number[];
        assert.equal(pids.length, 3);
        assert.ok(pids.every(processRunning), 'all running before the cancel');
        await peer.client.experimental.tasks.cancelTask(taskId);
        assert.deepEqual(pids.filter(processRunning), [], 'no process of the tree is left');
    });

    it('shell syntax in a parameter arrives as one literal argument', async () => {
        for (const text of ['; rm -rf /tmp/x', '$(touch /tmp/pwned)', '`id`', 'a\nb', "it's \"quoted\" && echo"]) {
            const result = await peer.client.callTool({ name: 'echo', arguments: { text } });
            const line = readFileSync((result.structuredContent as { logPath: string }).logPath, 'utf8').split('\n')[0]!;
            assert.deepEqual(JSON.parse(line), [text, 'end']);
        }
    });

    it('confirm shows the exact command line and runs only on yes', async () => {
        peer.answer = { action: 'decline' };
        const declined = await peer.client.callTool({ name: 'guarded', arguments: { text: '$(whoami)' } });
        assert.equal(declined.isError, true);
        assert.match(peer.asked.at(-1)!, /argv\.js '\$\(whoami\)'/);
        peer.answer = RUN;
        const accepted = await peer.client.callTool({ name: 'guarded', arguments: { text: 'hi' } });
        assert.notEqual(accepted.isError, true);
        assert.deepEqual(JSON.parse(readFileSync((accepted.structuredContent as { logPath: string }).logPath, 'utf8')), ['hi']);
    });

    it('the confirmation opens on Do not run it (first and default), and only the answer "run" runs the command', async () => {
        const notConsent: ElicitResult[] = [
            { action: 'accept', content: { run: 'cancel' } },
            { action: 'accept', content: { run: true } },
            { action: 'accept', content: { run: 'RUN' } },
            { action: 'accept', content: {} },
            { action: 'cancel' },
        ];
        for (const answer of notConsent) {
            peer.answer = answer;
            const result = await peer.client.callTool({ name: 'guarded', arguments: { text: 'no' } });
            assert.equal(result.isError, true, JSON.stringify(answer));
            assert.match((result.content as { text: string }[])[0]!.text, /^Not run: the user declined /, JSON.stringify(answer));
        }
        peer.answer = RUN;
        const schema = peer.schemas.at(-1) as { properties: { run: { type: string; oneOf: { const: string; title: string }[]; default: string } }; required: string[] };
        assert.deepEqual(schema.required, ['run']);
        assert.equal(schema.properties.run.type, 'string');
        assert.deepEqual(schema.properties.run.oneOf, [
            { const: 'cancel', title: 'Do not run it' },
            { const: 'run', title: 'Run the command' },
        ]);
        assert.equal(schema.properties.run.default, 'cancel', 'the safe choice is the default, so Enter runs nothing');
    });

    it('progress is throttled: 1000 lines give a handful of notifications, the last line among them', async () => {
        const { taskId, token } = await peer.start('print', { count: 1000 });
        await peer.result(taskId);
        const mine = peer.progress.items.filter(p => p.progressToken === token);
        // The lines arrive within a few reads, so at 4 a second only a few go out; 20 is far below 1000.
        assert.ok(mine.length >= 1 && mine.length <= 20, `${mine.length} notifications for 1000 lines`);
        assert.match(mine.at(-1)!.message ?? '', /^(done|secret is \*\*\*)$/, 'the final line is reported last');
    });

    it('progress skips lines with no letter or digit: the last line that says something stays the progress', async () => {
        const { taskId, token } = await peer.start('dots');
        await peer.result(taskId);
        const messages = peer.progress.items.filter(p => p.progressToken === token).map(p => p.message);
        assert.equal(messages.at(-1), 'step one');
        assert.deepEqual(
            messages.filter(message => !/[a-z0-9]/i.test(message ?? '')),
            [],
            'no progress message of punctuation alone',
        );
    });

    it('an entry named like a built-in or task tool is refused alone; the server starts and serves the rest', async () => {
        const clashing = join(dir, 'clashing.json');
        writeFileSync(
            clashing,
            JSON.stringify({ tools: ['greet', 'get_task', 'start_anything', 'fine'].map(name => ({ name, description: 'd', command: [node, script('argv.js')] })) }),
        );
        const other = new Peer();
        await other.connect(clashing, logDir);
        try {
            const names = (await other.client.listTools()).tools.map(tool => tool.name);
            assert.ok(names.includes('fine') && names.includes('start_fine'), names.join(', '));
            assert.equal(names.filter(name => name === 'greet' || name === 'get_task').length, 2, 'the built-in and task tools keep their names');
            assert.ok(!names.includes('start_anything'));
            await other.log.waitFor(/greet: a built-in tool has this name; this entry is not served/);
            await other.log.waitFor(/start_anything: names start_<tool>, get_task, cancel_task, list_tasks and read_output belong to the task tools/);
        } finally {
            await other.client.close();
        }
    });

    it('a reload sends tools/list_changed; a broken file keeps the last good set', async () => {
        const seen = peer.listChanged.items.length;
        writeFileSync(file, commandsJson([{ name: 'added', description: 'New.', command: [node, script('argv.js')] }]));
        await peer.listChanged.until(items => items.length > seen || undefined, 'tools/list_changed');
        assert.ok((await peer.client.listTools()).tools.some(tool => tool.name === 'added'));
        writeFileSync(file, JSON.stringify({ tools: [{ name: 'bad', description: 'x', command: ['x', '--f={f}.txt'] }] }));
        await peer.log.waitFor(/tools\[0\] \(bad\): command\[1\]: "--f=\{f\}\.txt": a \{parameter\} must be a whole argv element or end one \(--name=\{parameter\}\); keeping/);
        assert.ok((await peer.client.listTools()).tools.some(tool => tool.name === 'added'), 'the last good set stays');
    });
});
