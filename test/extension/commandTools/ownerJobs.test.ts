// VS Code tasks as tools, on the extension's side of the wire: the OwnerConnection declares it runs
// vscode-task jobs and hands the real server's ownerJob requests to its runner (here one that plays
// VS Code's task system), and which tasks.json labels the setting exposes, under which names.
import { fakeTasks, fakeTerminal } from '../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import type { OwnerJobStart, OwnerJobStatus } from '@mcp-tasks/server/contract';
import { vscodeTaskEntries, vscodeTaskToolName } from '../../../extension/commandTools/commandSources';
import { VsCodeTaskJobs, type OwnerJobRunner } from '../../../extension/commandTools/vscodeTaskJobs';
import type { ScopedLogger } from '../../../extension/logger';
import { OwnerConnection } from '../../../extension/owner/ownerConnection';
import { httpArgs, serverEnv } from '../../../extension/launcher/serverArgs';
import { ServerProcess } from '../../../extension/launcher/serverProcess';
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
        const limits = { defaultTtl: '1h', maxTtl: '2h', maxTasksPerClient: 20, logLevel: 'warn', taskTools: false, demoTools: true, abandonAfter: 'off', stoppedWaiting: 'keep' as const, commands: { file, logDir: dir } };
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
            rmSync(dir, { recursive: true, force: true });
        }
    });
});

describe('the VS Code task runner', () => {
    const exposed = new Set(['build', 'watch']);
    const start = (runner: VsCodeTaskJobs, key: string) => runner.start({ kind: 'vscode-task', key, args: {}, taskId: 't' });

    it('starts only a label exposed right now, and only a tasks.json one', async () => {
        fakeTasks.known = [
            { name: 'build', source: 'Workspace' },
            { name: 'secret', source: 'Workspace' },
            { name: 'watch', source: 'npm' },
        ];
        fakeTasks.executed = [];
        const runner = new VsCodeTaskJobs(() => exposed, quiet);
        try {
            await assert.rejects(start(runner, 'secret'), /"secret" is not exposed as a tool/);
            await assert.rejects(runner.start({ kind: 'other', key: 'build', args: {}, taskId: 't' }), /not exposed/);
            await assert.rejects(start(runner, 'watch'), /No task labelled "watch" in the workspace's tasks.json/);
            assert.equal(fakeTasks.executed.length, 0, 'nothing ran');
        } finally {
            runner.dispose();
        }
    });

    it('reports the exit code as the outcome, and a cancel terminates the task and waits for its end', async () => {
        fakeTasks.known = [{ name: 'build', source: 'Workspace' }];
        fakeTasks.executed = [];
        const runner = new VsCodeTaskJobs(() => exposed, quiet);
        try {
            const ok = await start(runner, 'build');
            const pushed = runner.status(ok.ref, true, new AbortController().signal);
            assert.equal((await runner.status(ok.ref, false, new AbortController().signal)).status, 'working');
            fakeTasks.exit(fakeTasks.executed[0], 0);
            const done = await pushed;
            assert.equal(done.status, 'completed');
            assert.deepEqual(done.result?.structuredContent?.exitCode, 0);

            const bad = await start(runner, 'build');
            fakeTasks.exit(fakeTasks.executed[1], 2);
            const failed = await runner.status(bad.ref, true, new AbortController().signal);
            assert.equal(failed.status, 'failed');
            assert.match(failed.statusMessage!, /^exit 2: VS Code task "build" failed/);

            const long = await start(runner, 'build');
            assert.deepEqual(runner.running().map(job => job.ref), [long.ref]);
            // No terminal to interrupt: the task is terminated.
            await runner.cancel(long.ref);
            assert.equal(fakeTasks.executed[2]!.terminated, true);
            assert.equal((await runner.status(long.ref, false, new AbortController().signal)).status, 'cancelled');
            assert.deepEqual(runner.running(), []);

            // Its terminal open: Ctrl+C stops it, the terminal (and what it printed) stays, nothing is terminated.
            const interrupted = await start(runner, 'build');
            const terminal = fakeTerminal('build', text => text === '\u0003' && fakeTasks.exit(fakeTasks.executed[3], 130));
            fakeTasks.terminals = [terminal];
            await runner.cancel(interrupted.ref);
            assert.deepEqual(terminal.sent, ['\u0003']);
            assert.equal(fakeTasks.executed[3]!.terminated, false);
            assert.equal((await runner.status(interrupted.ref, false, new AbortController().signal)).status, 'cancelled');
            assert.equal(runner.hasTerminal('t'), true, 'Show Output can bring the terminal back');
        } finally {
            fakeTasks.terminals = [];
            runner.dispose();
        }
    });
});
