// Row commands run from a keybinding get no row: they act on the selected one, and Delete asks first.
import { fake } from './support/fakeVscode.js';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { registerCommands, type CommandDeps } from '../../extension/commands.js';
import { Commands } from '../../extension/constants.js';
import { TaskModel } from '../../extension/tasks/taskModel.js';
import type { TaskView } from '../../extension/tasks/taskView.js';

const INFO = 'dev.mcp-tasks/task-info';

function wire(taskId: string, status: string): Record<string, unknown> {
    const at = '2026-11-29T10:00:00.000Z';
    return { taskId, status, createdAt: at, lastUpdatedAt: at, ttl: 60_000, _meta: { [INFO]: { toolName: 'slow_compute', args: {}, keyArgument: taskId } } };
}

describe('row commands from the keyboard', () => {
    let model: TaskModel;
    let selection: TaskView | undefined;
    let cancelled: string[];
    let shown: string[];
    let prompted: string[];

    beforeEach(() => {
        fake.reset();
        model = new TaskModel();
        selection = undefined;
        cancelled = [];
        shown = [];
        prompted = [];
        const deps = {
            logger: { scoped: () => ({ error: () => undefined }) },
            owner: { cancel: (id: string) => (cancelled.push(id), Promise.resolve()), result: () => Promise.resolve({ content: [] }) },
            model,
            results: { show: (id: string) => (shown.push(id), Promise.resolve(undefined)) },
            pendingInputs: { get: (id: string) => ({ show: () => prompted.push(id) }) },
            startedHere: new Set<string>(),
            resetSamplingConsent: () => Promise.resolve(),
            selected: () => selection,
        } as unknown as CommandDeps;
        registerCommands({ subscriptions: [] } as never, deps);
    });

    const run = (command: string, ...args: unknown[]) => fake.registered.get(command)!(...args);
    const titles = (args: unknown[]) => args.filter((a): a is { title: string } => typeof a === 'object' && a !== null && 'title' in a).map(a => a.title);

    it('Delete cancels the selected running task after a modal confirmation', async () => {
        selection = model.applyWire(wire('a', 'working'));
        fake.onWarning = (_message, _options, ...items) => items[0];
        await run(Commands.cancelTask);
        const [asked] = fake.messages;
        assert.equal(asked?.message, 'Cancel task slow_compute: a?');
        assert.deepEqual(asked?.args[0], { modal: true, detail: 'It stops its work.' });
        assert.deepEqual(titles(asked!.args), ['Cancel Task', 'Keep Running']);
        assert.deepEqual(cancelled, ['a']);
    });

    it('Keep Running (or Escape) leaves the task running', async () => {
        selection = model.applyWire(wire('a', 'working'));
        fake.onWarning = (_message, _options, ...items) => items[1];
        await run(Commands.cancelTask);
        fake.onWarning = () => undefined;
        await run(Commands.cancelTask);
        assert.deepEqual(cancelled, []);
    });

    it('the row button cancels at once, without asking', async () => {
        const view = model.applyWire(wire('a', 'working'));
        await run(Commands.cancelTask, view);
        assert.deepEqual(cancelled, ['a']);
        assert.equal(fake.messages.filter(m => m.level === 'warning').length, 0);
    });

    it('a selection that finished meanwhile is not cancelled', async () => {
        selection = model.applyWire(wire('a', 'working'));
        model.applyWire({ ...wire('a', 'completed'), lastUpdatedAt: '2026-11-29T10:00:01.000Z' });
        await run(Commands.cancelTask);
        assert.deepEqual(cancelled, []);
        assert.equal(fake.messages.filter(m => m.level === 'warning').length, 0);
    });

    it('Enter shows the selected finished task, or reopens the selected prompt', async () => {
        selection = model.applyWire(wire('done', 'completed'));
        await run(Commands.showResult);
        assert.deepEqual(shown, ['done']);
        model.applyWire(wire('other', 'input_required'));
        selection = model.applyWire(wire('asking', 'input_required'));
        await run(Commands.respond);
        assert.deepEqual(prompted, ['asking']);
    });
});
