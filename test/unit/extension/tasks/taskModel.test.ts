import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { INLINE_SETTLE_MS, TaskModel } from '../../../../extension/tasks/taskModel';
import { clientKind, compareTasks, formatElapsed, fromWire, progressPercent, ROW_LABEL_MAX, rowLabel, statusInWords, taskDescription, taskLabel, type TaskView } from '../../../../extension/tasks/taskView';

const INFO = 'dev.mcp-tasks/task-info';
const PARENT = 'dev.mcp-tasks/parent-task-id';

function wire(taskId: string, status: string, extra: { created?: string; updated?: string; tool?: string; args?: object; key?: string; parent?: string; client?: string; message?: string } = {}): Record<string, unknown> {
    const meta: Record<string, unknown> = { [INFO]: { toolName: extra.tool ?? 'slow_compute', args: extra.args ?? {}, clientName: extra.client, keyArgument: extra.key } };
    if (extra.parent) {
        meta[PARENT] = extra.parent;
    }
    return {
        taskId,
        status,
        createdAt: extra.created ?? '2026-11-29T10:00:00.000Z',
        lastUpdatedAt: extra.updated ?? extra.created ?? '2026-11-29T10:00:00.000Z',
        ttl: 3_600_000,
        pollInterval: 1000,
        ...(extra.message ? { statusMessage: extra.message } : {}),
        _meta: meta,
    };
}

describe('task model', () => {
    it("a creation's answer arriving after the task's first status notification does not undo it", () => {
        const model = new TaskModel(() => 0);
        model.applyWire(wire('asks', 'input_required', { updated: '2026-11-29T10:00:00.001Z' }));
        model.applyCreated(wire('asks', 'working'));
        assert.equal(model.get('asks')?.status, 'input_required');
        model.applyCreated(wire('new', 'working'));
        assert.equal(model.get('new')?.status, 'working', 'a task not heard of yet is added by its answer');
    });

    it('says a row changed state a moment ago (its inline clicks are not trusted), by its clock; progress does not count', () => {
        let now = 1_000_000;
        const model = new TaskModel(() => now);
        model.applyWire(wire('a', 'working'));
        assert.equal(model.justChanged('a'), true, 'a new row');
        now += INLINE_SETTLE_MS;
        assert.equal(model.justChanged('a'), false);
        model.applyProgress('a', { progress: 1, total: 2 });
        model.applyWire(wire('a', 'working', { updated: '2026-11-29T10:00:01.000Z' }));
        assert.equal(model.justChanged('a'), false, 'progress and same-status updates keep it settled');
        model.applyWire(wire('a', 'cancelled', { updated: '2026-11-29T10:00:02.000Z' }));
        assert.equal(model.justChanged('a'), true, 'Cancel became Run Again');
        now += INLINE_SETTLE_MS - 1;
        assert.equal(model.justChanged('a'), true);
        now += 1;
        assert.equal(model.justChanged('a'), false);
        model.markLost();
        assert.equal(model.justChanged('a'), true, 'lost');
        assert.equal(model.justChanged('unknown'), false);
    });

    it('orders running, then needs input, then finished; newest first within each group', () => {
        const model = new TaskModel();
        model.applyWire(wire('done-old', 'completed', { created: '2026-11-29T09:00:00Z' }));
        model.applyWire(wire('run-old', 'working', { created: '2026-11-29T09:30:00Z' }));
        model.applyWire(wire('input', 'input_required', { created: '2026-11-29T09:40:00Z' }));
        model.applyWire(wire('done-new', 'failed', { created: '2026-11-29T09:50:00Z' }));
        model.applyWire(wire('run-new', 'working', { created: '2026-11-29T09:55:00Z' }));
        model.applyWire(wire('cancelled', 'cancelled', { created: '2026-11-29T09:45:00Z' }));
        assert.deepEqual(
            model.roots().map(v => v.taskId),
            ['run-new', 'run-old', 'input', 'done-new', 'cancelled', 'done-old'],
        );
    });

    it('nests children under their parent and keeps them off the top level', () => {
        const model = new TaskModel();
        model.applyWire(wire('parent', 'working', { tool: 'deploy', args: { app: 'demo' } }));
        model.applyWire(wire('build', 'working', { tool: 'deploy_step', args: { app: 'demo', step: 'build' }, key: 'build', parent: 'parent', created: '2026-11-29T10:00:01Z' }));
        model.applyWire(wire('test', 'completed', { tool: 'deploy_step', args: { app: 'demo', step: 'test' }, parent: 'parent', created: '2026-11-29T10:00:02Z' }));
        assert.deepEqual(model.roots().map(v => v.taskId), ['parent']);
        assert.deepEqual(model.children('parent').map(v => v.taskId), ['build', 'test']);
        assert.ok(model.hasChildren('parent'));
        assert.equal(taskLabel(model.get('build')!), 'deploy_step: build');
    });

    it('shows a child at the top level when its parent is unknown', () => {
        const model = new TaskModel();
        model.applyWire(wire('orphan', 'working', { parent: 'not-here' }));
        assert.deepEqual(model.roots().map(v => v.taskId), ['orphan']);
    });

    it('keeps object identity per task and reports structural vs in-place changes', () => {
        const model = new TaskModel();
        const changes: boolean[] = [];
        model.onDidChange(change => changes.push(change.structural));
        const first = model.applyWire(wire('a', 'working'));
        model.applyProgress('a', { progress: 1, total: 4 });
        const second = model.applyWire(wire('a', 'working', { updated: '2026-11-29T10:00:01Z', message: 'still going' }));
        model.applyWire(wire('a', 'completed', { updated: '2026-11-29T10:00:02Z' }));
        assert.equal(first, second);
        assert.deepEqual(changes, [true, false, false, true]);
        assert.equal(first!.progress, undefined, 'progress is dropped once terminal');
    });

    it('never lets a late update undo a terminal state', () => {
        const model = new TaskModel();
        const view = model.applyWire(wire('a', 'cancelled'))!;
        model.applyWire(wire('a', 'working'));
        assert.equal(view.status, 'cancelled');
        model.applyProgress('a', { progress: 3, total: 4 });
        assert.equal(view.progress, undefined);
    });

    it('reconciles with a full listing: adds the missed, drops the expired', () => {
        const model = new TaskModel();
        model.applyWire(wire('expired', 'completed'));
        model.applyWire(wire('kept', 'working'));
        model.reconcile([wire('kept', 'completed', { updated: '2026-11-29T10:01:00Z' }), wire('missed', 'working')]);
        assert.deepEqual(model.all().map(v => v.taskId).sort(), ['kept', 'missed']);
        assert.equal(model.get('kept')!.status, 'completed');
    });

    it('a running command shows its latest output line (one line, cut) where it has no percent', () => {
        const model = new TaskModel();
        const view = model.applyWire(wire('c', 'working', { created: '2026-11-29T10:00:00Z' }))!;
        model.applyProgress('c', { progress: 3, message: '12 passed, 1 failed so far — ok 13 - parses dates' });
        assert.equal(taskDescription(view, Date.parse('2026-11-29T10:00:10Z')), 'running · 12 passed, 1 failed so far — ok 13 - parses dates · <1m');
        model.applyProgress('c', { progress: 4, message: `\x1b[32mok\x1b[0m\t${'x'.repeat(200)}` });
        const shown = taskDescription(view, Date.parse('2026-11-29T10:00:10Z')).split(' · ')[1]!;
        assert.ok(shown.startsWith('ok x') && shown.endsWith('…') && shown.length === 80, shown);
    });

    it('a task the user denied a language model reads "denied by you", not failed with the message', () => {
        const model = new TaskModel();
        const view = model.applyWire({ ...wire('d', 'failed', { created: '2026-11-29T10:00:00Z', updated: '2026-11-29T10:00:04Z' }), statusMessage: 'The client answered sampling/createMessage with an error: The user denied sampling for MCP Tasks (code -1)' })!;
        assert.equal(taskDescription(view, 0), 'denied by you · 4s');
    });

    it('keeps a task the server dropped unfinished, marked expired with its time stopped, until Clear Finished', () => {
        let now = Date.parse('2026-11-29T10:00:30Z');
        const model = new TaskModel(() => now);
        model.applyWire(wire('asked', 'input_required', { created: '2026-11-29T10:00:00Z' }));
        model.reconcile([]);
        const view = model.get('asked')!;
        assert.equal(view.expired, true);
        assert.equal(view.lost, true);
        now += 10 * 60_000;
        assert.equal(taskDescription(view, now), 'expired · not answered in time · 30s');
        model.reconcile([]);
        assert.equal(model.get('asked'), view, 'still listed after another listing');
        assert.deepEqual(model.clearFinished(), ['asked']);
    });

    it('marks every task of a server that is gone, keeps them through the next server\'s listing, and revives one it still has', () => {
        const model = new TaskModel();
        model.applyWire(wire('a', 'working', { created: '2026-11-29T10:00:05Z' }));
        model.applyWire(wire('b', 'completed', { created: '2026-11-29T10:00:00Z', updated: '2026-11-29T10:00:03Z' }));
        model.applyWire(wire('c', 'completed', { created: '2026-11-29T10:00:00Z' }));
        model.markLost();
        assert.equal(model.get('a')!.lost, true);
        assert.equal(model.get('b')!.lost, true);
        assert.equal(model.running().length, 0);
        assert.match(taskDescription(model.get('a')!, Date.parse('2026-11-29T10:00:10Z')), /^lost/);
        assert.equal(taskDescription(model.get('b')!, 0), 'completed on a previous server · 3s');
        // The new server (a shared store) still has c, not a or b: a and b stay as history.
        model.reconcile([wire('c', 'completed', { created: '2026-11-29T10:00:00Z' }), wire('d', 'working')]);
        assert.deepEqual(model.all().map(v => [v.taskId, v.lost ?? false]).sort(), [['a', true], ['b', true], ['c', false], ['d', false]]);
    });

    it('remembers which tasks a lost server was still running (not their steps): the crash notice names them', () => {
        const model = new TaskModel();
        model.applyWire(wire('done', 'completed'));
        model.applyWire(wire('run', 'working', { key: 'nightly' }));
        model.applyWire(wire('step', 'working', { parent: 'run' }));
        model.markLost();
        assert.deepEqual(model.lostAtLastStop.map(view => view.taskId), ['run']);
        model.markLost();
        assert.deepEqual(model.lostAtLastStop, [], 'a second stop lost nothing new');
    });

    it('clears finished and lost tasks but keeps running ones and parents of running children', () => {
        const model = new TaskModel();
        model.applyWire(wire('done', 'completed'));
        model.applyWire(wire('run', 'working'));
        model.applyWire(wire('parent', 'failed'));
        model.applyWire(wire('child', 'working', { parent: 'parent' }));
        assert.deepEqual(model.clearFinished(), ['done'], 'it says which it forgot: their kept results go too');
        assert.deepEqual(model.all().map(v => v.taskId).sort(), ['child', 'parent', 'run']);
    });

    it('keeps cleared finished rows cleared when the server lists them again, until it no longer does', () => {
        const model = new TaskModel();
        model.applyWire(wire('done', 'completed'));
        model.applyWire(wire('run', 'working'));
        assert.deepEqual(model.clearFinished(), ['done']);
        // The server keeps a finished task for its TTL: the next listing and a late notification still name it.
        model.reconcile([wire('done', 'completed'), wire('run', 'working')]);
        assert.equal(model.applyWire(wire('done', 'completed', { updated: '2026-11-29T10:00:01.000Z' })), undefined);
        assert.deepEqual(model.all().map(v => v.taskId), ['run'], 'the cleared row stays cleared');
        // The running one finishes and is cleared too; once the server drops 'done', its id is forgotten.
        model.reconcile([wire('run', 'completed')]);
        assert.deepEqual(model.clearFinished(), ['run']);
        model.reconcile([]);
        model.reconcile([wire('done', 'completed')]);
        assert.deepEqual(model.all().map(v => v.taskId), ['done'], 'an id the server stopped listing is not remembered for ever');
    });

    it("lists an earlier window's finished tasks with kept results as tasks of a previous server, leaving listed ones as they are", () => {
        const model = new TaskModel();
        model.applyWire(wire('live', 'completed'));
        const earlier = new TaskModel();
        earlier.applyWire(wire('old', 'completed', { key: 'kept' }));
        earlier.applyWire(wire('live', 'failed'));
        earlier.applyWire(wire('unfinished', 'working'));
        model.restoreKept(earlier.all());
        assert.deepEqual(model.all().map(v => [v.taskId, v.status, v.lost ?? false]).sort(), [['live', 'completed', false], ['old', 'completed', true]]);
        assert.equal(taskDescription(model.get('old')!, 0).split(' · ')[0], 'completed on a previous server');
        // A new server that still has it (a shared store) revives it.
        model.reconcile([wire('old', 'completed', { key: 'kept' }), wire('live', 'completed')]);
        assert.equal(model.get('old')?.lost, false);
    });

    it('handles 1,000 tasks', () => {
        const model = new TaskModel();
        for (let i = 0; i < 1000; i++) {
            model.applyWire(wire(`t${i}`, i % 3 === 0 ? 'completed' : 'working', { created: new Date(Date.UTC(2026, 10, 29, 10, 0, i % 60, i)).toISOString() }));
        }
        const roots = model.roots();
        assert.equal(roots.length, 1000);
        for (let i = 1; i < roots.length; i++) {
            assert.ok(compareTasks(roots[i - 1]!, roots[i]!) <= 0);
        }
    });
});

describe('task labels and descriptions', () => {
    const base: TaskView = { taskId: 'x', status: 'working', createdAt: '2026-11-29T10:00:00.000Z', lastUpdatedAt: '2026-11-29T10:00:00.000Z', ttl: 1000, toolName: 'slow_compute', args: {} };

    it('labels a task by its tool and the key argument the server names in task-info', () => {
        const label = (extra: Parameters<typeof wire>[2]) => taskLabel(fromWire(wire('t', 'working', extra))!);
        assert.equal(label({ tool: 'slow_compute', args: { label: 'report', seconds: 3 }, key: 'report' }), 'slow_compute: report');
        assert.equal(label({ tool: 'external_job', args: { job_id: 'job-9' }, key: 'job-9' }), 'external_job: job-9');
        // A tool of some other server, keyed on an argument no built-in list would guess.
        assert.equal(label({ tool: 'ingest', args: { dataset: 'sales-2026' }, key: 'sales-2026' }), 'ingest: sales-2026');
        // No key from the server: the arguments are not guessed at, even ones named like a label.
        assert.equal(label({ tool: 'failing_job', args: { label: 'x', name: 'y' } }), 'failing_job');
        assert.equal(label({ tool: 'slow_compute', args: { label: '' }, key: '' }), 'slow_compute');
        assert.equal(fromWire({ taskId: 't', status: 'working', _meta: { [INFO]: { toolName: 'greet', args: {}, keyArgument: 42 } } })?.keyArgument, undefined, 'a non-string key is ignored');
    });

    it('keeps the key argument through updates and picks up a new one', () => {
        const model = new TaskModel();
        const view = model.applyWire(wire('k', 'working', { tool: 'write_haiku', args: { topic: 'rain' }, key: 'rain' }))!;
        assert.equal(taskLabel(view), 'write_haiku: rain');
        model.applyWire(wire('k', 'completed', { tool: 'write_haiku', args: { topic: 'snow' }, key: 'snow', updated: '2026-11-29T10:00:05.000Z' }));
        assert.equal(taskLabel(view), 'write_haiku: snow');
    });

    it('describes status, progress and elapsed time', () => {
        const now = Date.parse('2026-11-29T10:00:12.000Z');
        assert.equal(taskDescription({ ...base, progress: { progress: 2, total: 5 } }, now), 'running · 40% · <1m');
        assert.equal(taskDescription({ ...base, status: 'input_required' }, now + 125_000), 'needs input · 2m');
        assert.equal(taskDescription({ ...base, status: 'completed', lastUpdatedAt: '2026-11-29T10:00:03.000Z', progress: { progress: 1, total: 2 } }, now), 'completed · 3s');
    });

    it('labels a row by its key argument alone, cut to fit a narrow sidebar, and ends the description with the tool', () => {
        const now = Date.parse('2026-11-29T10:00:12.000Z');
        assert.equal(rowLabel({ toolName: 'slow_compute', keyArgument: 'nightly' }), 'nightly');
        assert.equal(rowLabel({ toolName: 'failing_job' }), 'failing_job');
        const long = rowLabel({ toolName: 'slow_compute', keyArgument: 'quarterly report for the finance team' });
        // Cut at ROW_LABEL_MAX, without a space before the ellipsis.
        assert.equal(long, 'quarterly repor…');
        assert.ok(long.length <= ROW_LABEL_MAX);
        const keyed = { ...base, keyArgument: 'nightly', progress: { progress: 1, total: 4 } };
        assert.equal(taskDescription(keyed, now, { tool: true }), 'running · 25% · <1m · slow_compute');
        // No key argument: the label is already the tool.
        assert.equal(taskDescription({ ...base }, now, { tool: true }), 'running · <1m');
    });

    it('says why a task failed in its description, before the time', () => {
        const failed: TaskView = { ...base, status: 'failed', statusMessage: 'exit 2: no such file', lastUpdatedAt: '2026-11-29T10:00:01.000Z' };
        assert.equal(taskDescription(failed, 0), 'failed · exit 2: no such file · 1s');
        assert.equal(taskDescription({ ...failed, status: 'cancelled', statusMessage: 'Cancelled from the MCP Tasks sidebar' }, 0), 'cancelled · 1s');
    });

    it("says how a completed task ended when its tool said so (confirm_delete's Confirmed or Declined), before the time", () => {
        const done: TaskView = { ...base, status: 'completed', statusMessage: 'Declined', lastUpdatedAt: '2026-11-29T10:00:01.000Z', keyArgument: 'a.txt', toolName: 'confirm_delete' };
        assert.equal(taskDescription(done, 0, { tool: true }), 'completed · Declined · 1s · confirm_delete');
        assert.equal(taskDescription({ ...done, statusMessage: undefined }, 0), 'completed · 1s');
    });

    it('lists sub-tasks in the order they started, whatever their state', () => {
        const model = new TaskModel();
        const at = (s: number) => `2026-11-29T10:00:0${s}.000Z`;
        const child = (id: string, status: string, created: string) => wire(id, status, { tool: 'deploy_step', args: { step: id }, key: id, created, parent: 'p' });
        model.applyWire(wire('p', 'working', { tool: 'deploy', args: { app: 'a' }, key: 'a' }));
        model.applyWire(child('push', 'working', at(5)));
        model.applyWire(child('build', 'completed', at(1)));
        model.applyWire(child('test', 'completed', at(1)));
        // build and test started in the same millisecond: the order they arrived in.
        assert.deepEqual(model.children('p').map(view => rowLabel(view)), ['build', 'test', 'push']);
    });

    it('formats elapsed time and progress', () => {
        assert.equal(formatElapsed(59_999), '59s');
        assert.equal(formatElapsed(61_000), '1m 01s');
        assert.equal(formatElapsed(3_726_000), '1h 02m');
        assert.equal(progressPercent({ progress: 1, total: 3 }), 33);
        assert.equal(progressPercent({ progress: 5 }), undefined);
        assert.equal(progressPercent({ progress: 9, total: 4 }), 100);
    });

    it('names who started a task', () => {
        assert.equal(clientKind('MCP Tasks for VS Code', 'MCP Tasks for VS Code'), 'editor');
        assert.equal(clientKind('Visual Studio Code', 'MCP Tasks for VS Code'), 'copilot');
        assert.equal(clientKind('raw-cli', 'MCP Tasks for VS Code'), 'other');
        assert.equal(clientKind(undefined, 'MCP Tasks for VS Code'), 'other');
    });
});

describe('a live task its client stopped waiting for', () => {
    const stopped = (status: string, at?: string, client = 'Visual Studio Code') => {
        const w = wire('s', status, { client });
        if (at) {
            ((w._meta as Record<string, Record<string, unknown>>)[INFO]!).stoppedWaitingAt = at;
        }
        return w;
    };
    const now = Date.parse('2026-11-29T10:00:12.000Z');

    it('says so in its row, at once, and goes back to "running" when its client polls again', () => {
        const model = new TaskModel();
        const view = model.applyWire(stopped('working'))!;
        assert.equal(taskDescription(view, now), 'running · <1m');
        model.applyWire(stopped('working', '2026-11-29T10:00:10.000Z'));
        assert.equal(view.stoppedWaitingAt, '2026-11-29T10:00:10.000Z');
        assert.equal(taskDescription(view, now), 'Copilot stopped waiting · <1m');
        model.applyWire(stopped('working'));
        assert.equal(taskDescription(view, now), 'running · <1m');
    });

    it('names another client in general words, and a finished task says how it ended instead', () => {
        assert.equal(taskDescription(fromWire(stopped('working', '2026-11-29T10:00:10.000Z', 'some-agent'))!, now), 'The app that started it stopped waiting · <1m');
        assert.equal(fromWire(stopped('cancelled', '2026-11-29T10:00:10.000Z'))?.stoppedWaitingAt, undefined);
    });

    it('a task cancelled because its client stopped waiting says so in its row (the server\'s words, server/src/tasks/runtime.ts abandoned)', () => {
        const w = { ...stopped('cancelled'), lastUpdatedAt: '2026-11-29T10:00:05.000Z', statusMessage: 'Cancelled: the client that started this task stopped following it (no tasks/get or tasks/result for 4 s)' };
        assert.equal(taskDescription(fromWire(w)!, now), 'cancelled · Copilot stopped waiting · 5s');
        assert.equal(taskDescription(fromWire({ ...w, statusMessage: 'Cancelled from the MCP Tasks sidebar' })!, now), 'cancelled · 5s');
    });
});

describe('status messages in words', () => {
    it("says the caller stopped waiting where the server names the methods it no longer called", () => {
        const message = 'Cancelled: the client that started this task stopped following it (no tasks/get or tasks/result for 30 s)';
        assert.equal(statusInWords(message, 'Visual Studio Code'), 'Cancelled: Copilot stopped waiting for it (no check for 30 s)');
        assert.equal(statusInWords(message, 'claude-code'), 'Cancelled: the app that started it stopped waiting for it (no check for 30 s)');
        assert.equal(fromWire({ ...wire('a', 'cancelled', { client: 'Visual Studio Code' }), statusMessage: message })?.statusMessage, 'Cancelled: Copilot stopped waiting for it (no check for 30 s)');
        assert.equal(statusInWords('MCP error -32603: Job failed', undefined), 'Job failed');
    });

    it('matches the words the server uses (server/src/tasks/runtime.ts)', () => {
        const source = readFileSync(resolve(__dirname, '../../../../server/src/tasks/runtime.ts'), 'utf8');
        const template = /`(Cancelled: the client that started this task stopped following it \(no [^`]*\$\{seconds\} s\))`/.exec(source)?.[1];
        assert.ok(template, 'the server no longer words abandonment this way: update statusInWords');
        for (const asked of ['tasks/get or tasks/result', 'get_task, read_output, tasks/get or tasks/result']) {
            const message: string = template.replace('${seconds}', '12.5').replace(/\$\{\w+\}/g, asked);
            assert.equal(statusInWords(message, 'Visual Studio Code'), 'Cancelled: Copilot stopped waiting for it (no check for 12.5 s)', message);
        }
    });
});
