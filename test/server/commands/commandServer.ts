/** A real server on stdio serving a commands file, for the command tool suites. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateTaskResultSchema, ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { LogTail, SERVER_JS } from '../../support/helpers.js';
import { Feed } from '../../support/wait.js';

const node = process.execPath;

/** A server on stdio with a commands file, and what it reports. */
export class Server {
    readonly client = new Client({ name: 'stops-test', version: '1' });
    readonly log = new LogTail();
    readonly progress = new Feed<{ progressToken: string | number; message?: string }>();
    transport!: StdioClientTransport;
    private next = 0;

    /** `logDir` undefined: the server's default, a private temp folder. */
    async open(file: string, logDir: string | undefined, env: Record<string, string> = {}, args: string[] = []): Promise<void> {
        this.transport = new StdioClientTransport({
            command: node,
            args: [SERVER_JS, '--stdio', '--commands', file, ...(logDir === undefined ? [] : ['--commands-log-dir', logDir]), ...args],
            env: { ...(process.env as Record<string, string>), ...env },
            stderr: 'pipe',
        });
        this.log.attach(this.transport.stderr as unknown as NodeJS.ReadableStream);
        this.client.setNotificationHandler(ProgressNotificationSchema, n => this.progress.push(n.params));
        await this.client.connect(this.transport);
    }

    /** Starts a tool as a task with a fresh progress token; returns the task id and token. */
    async start(name: string, args: Record<string, unknown> = {}): Promise<{ taskId: string; token: string }> {
        const token = `p${++this.next}`;
        const { task } = await this.client.request({ method: 'tools/call', params: { name, arguments: args, task: {}, _meta: { progressToken: token } } }, CreateTaskResultSchema);
        return { taskId: task.taskId, token };
    }

    async line(token: string, pattern: RegExp): Promise<string> {
        const hit = await this.progress.waitFor(p => p.progressToken === token && pattern.test(p.message ?? ''), `progress ${pattern} on ${token}`);
        return hit.message!;
    }

    async pids(token: string): Promise<number[]> {
        return JSON.parse((await this.line(token, /^pids /)).slice(5)) as number[];
    }

    result(taskId: string) {
        return this.client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
    }

    /**
     * Runs `name` as a task that must fail (a real project's suite with a bug in it): its result, and
     * the task's statusMessage, all VS Code shows of a failure (printed, for the run's log).
     */
    async failedRun(name: string): Promise<{ taskId: string; result: Awaited<ReturnType<Server['result']>>; status: string }> {
        const { taskId } = await this.start(name);
        const result = await this.result(taskId);
        assert.equal(result.isError, true);
        const task = await this.client.experimental.tasks.getTask(taskId);
        assert.equal(task.status, 'failed');
        const status = task.statusMessage ?? '';
        console.log(`# status (${status.length} chars):\n${status.replace(/^/gm, '#   ')}`);
        assert.match(status, /^exit 1 after [\d.]+ s: /);
        return { taskId, result, status };
    }
}

export function commandsFile(dir: string, tools: object[]): string {
    const file = join(dir, 'commands.json');
    writeFileSync(file, JSON.stringify({ tools }));
    return file;
}

