// VS Code tasks as tools, on the extension's side of the wire: the OwnerConnection declares it runs
// vscode-task jobs and hands the real server's ownerJob requests to its runner (here one that plays
// VS Code's task system), and which tasks.json labels the setting exposes, under which names.
import '../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import type { OwnerJobStart, OwnerJobStatus } from '@mcp-tasks/server/contract';
import { vscodeTaskEntries, vscodeTaskToolName } from '../../../extension/commandTools/commandSources';
import type { OwnerJobRunner } from '../../../extension/commandTools/vscodeTaskJobs';
import type { ScopedLogger } from '../../../extension/logger';
import { OwnerConnection } from '../../../extension/mcp/ownerConnection';
import { httpArgs, serverEnv } from '../../../extension/mcp/serverArgs';
import { ServerProcess } from '../../../extension/mcp/serverProcess';
import { TaskModel } from '../../../extension/tasks/taskModel';

const quiet: ScopedLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const SECRETS = { clientToken: 'client-secret', ownerToken: 'owner-secret' };

/** Plays VS Code's task system: a job runs until the test ends it or the server cancels it. */
class Runner implements OwnerJobRunner {
    readonly kinds = ['vscode-task'];
    readonly started: OwnerJobStart[] = [];
    readonly cancelled: string[] = [];
    private readonly ends = new Map<string, { done: Promise<OwnerJobStatus>; end(status: OwnerJobStatus): void }>();
    private onStart?: () => void;

    async start(params: OwnerJobStart): Promise<{ ref: string }> {
        const ref = `ref-${this.started.push(params)}`;
        let end!: (status: OwnerJobStatus) => void;
        this.ends.set(ref, { done: new Promise(resolve => (end = resolve)), end });
        this.onStart?.();
        return { ref };
    }
    async status(ref: string, wait: boolean): Promise<OwnerJobStatus> {
        return wait ? this.ends.get(ref)!.done : { status: 'working' };
    }
    async cancel(ref: string): Promise<void> {
        this.cancelled.push(ref);
        this.ends.get(ref)!.end({ status: 'cancelled', statusMessage: 'terminated' });
    }
    end(ref: string, status: OwnerJobStatus): void {
        this.ends.get(ref)!.end(status);
    }
    nextStart(): Promise<void> {
        return new Promise(resolve => (this.onStart = resolve));
    }
}

describe('VS Code tasks as tools (extension side)', () => {
    it('exposes the labels the setting names (or all for true), each once, under a valid tool name', () => {
        const tasks = [
            { label: 'build', folder: '/ws' },
            { label: 'npm: test', detail: 'jest', folder: '/ws' },
            { label: 'build', folder: '/other' },
        ];
        assert.deepEqual([...vscodeTaskEntries(true, tasks).labels], ['build', 'npm: test']);
        assert.deepEqual([...vscodeTaskEntries(['npm: test', 'absent'], tasks).labels], ['npm: test']);
        assert.deepEqual([...vscodeTaskEntries(false, tasks).labels], []);
        assert.deepEqual([...vscodeTaskEntries(undefined, tasks).labels], []);
        const [entry] = vscodeTaskEntries(['npm: test'], tasks).entries;
        assert.equal(entry!.name, 'vscode_task_npm_test');
        assert.deepEqual(entry!.ownerJob, { kind: 'vscode-task', key: 'npm: test' });
        assert.match(entry!.description as string, /"npm: test".*\(jest\)/);
        assert.match(vscodeTaskToolName('x'.repeat(100)), /^vscode_task_x{52}$/);
    });

    it('the owner connection runs the server’s owner jobs: start by label, pushed end, cancel', { timeout: 30_000 }, async () => {
        const dir = realpathSync(mkdtempSync(join(tmpdir(), 'owner-jobs-')));
        const file = join(dir, 'commands.json');
        writeFileSync(file, JSON.stringify({ roots: [dir], tools: vscodeTaskEntries(true, [{ label: 'build', folder: dir }]).entries }));
        const limits = { defaultTtl: '1h', maxTtl: '2h', maxTasksPerClient: 20, logLevel: 'warn', taskTools: false, abandonAfter: 'off', commands: { file, logDir: dir } };
        const server = await ServerProcess.start({ command: process.execPath, args: httpArgs(resolve('dist/server.js'), limits), env: serverEnv(SECRETS), secrets: SECRETS }, quiet);
        const runner = new Runner();
        const model = new TaskModel();
        const owner = new OwnerConnection(model, quiet, undefined, undefined, runner);
        try {
            const up = new Promise<void>(resolve => owner.onDidChangeState(connected => connected && resolve()));
            owner.setEndpoint({ url: server.url, token: SECRETS.ownerToken, pid: server.pid });
            await up;
            assert.ok((await owner.listTools()).some(tool => tool.name === 'vscode_task_build'));

            let started = runner.nextStart();
            const done = await owner.startTask('vscode_task_build', {});
            await started;
            assert.deepEqual(runner.started.map(s => [s.kind, s.key, s.taskId]), [['vscode-task', 'build', done]]);
            runner.end('ref-1', { status: 'completed', result: { content: [{ type: 'text', text: 'exited with code 0' }] } });
            assert.equal(((await owner.result(done)).content[0] as { text: string }).text, 'exited with code 0');

            started = runner.nextStart();
            const stopped = await owner.startTask('vscode_task_build', {});
            await started;
            await owner.cancel(stopped);
            assert.deepEqual(runner.cancelled, ['ref-2']);
            assert.equal(model.get(stopped)?.status, 'cancelled');
        } finally {
            owner.dispose();
            await server.stop();
        }
    });
});
