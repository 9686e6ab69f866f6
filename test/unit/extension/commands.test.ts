// Row commands get their row from VS Code (a keybinding's is the focused row): Delete asks first, the inline button does not.
import { fake } from '../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { registerCommands, type CommandDeps } from '../../../extension/commands.js';
import { Commands, RESPOND_FROM_STATUS_BAR } from '../../../extension/constants.js';
import { TaskModel } from '../../../extension/tasks/taskModel.js';
import type { TaskView } from '../../../extension/tasks/taskView.js';

const INFO = 'dev.mcp-tasks/task-info';

function wire(taskId: string, status: string, info: Record<string, unknown> = {}, at = '2026-11-29T10:00:00.000Z'): Record<string, unknown> {
    return { taskId, status, createdAt: at, lastUpdatedAt: at, ttl: 60_000, _meta: { [INFO]: { toolName: 'slow_compute', args: {}, keyArgument: taskId, ...info } } };
}

describe('row commands from the keyboard', () => {
    let model: TaskModel;
    let cancelled: string[];
    let shown: string[];
    let prompted: string[];
    /** The tasks this extension has a prompt open for. */
    let withPrompt: Set<string>;
    /** The tasks whose result the extension kept. */
    let kept: Set<string>;
    /** How each open prompt ends: answered (true) or gone unanswered (false). */
    let answered: boolean;
    /** Where the keyboard was sent after an answer. */
    let focused: string[];

    beforeEach(() => {
        fake.reset();
        model = new TaskModel();
        cancelled = [];
        shown = [];
        prompted = [];
        withPrompt = new Set();
        kept = new Set();
        answered = true;
        focused = [];
        const deps = {
            logger: { scoped: () => ({ error: () => undefined }) },
            owner: { cancel: (id: string) => (cancelled.push(id), Promise.resolve()), result: () => Promise.resolve({ content: [] }), hasResult: (id: string) => kept.has(id) },
            model,
            results: { show: (id: string) => (shown.push(id), Promise.resolve(undefined)) },
            pendingInputs: { get: (id: string) => (withPrompt.has(id) ? { show: () => prompted.push(id), settled: Promise.resolve(answered) } : undefined) },
            focusAfterAnswer: (id: string) => (focused.push(id), Promise.resolve()),
            startedHere: new Set<string>(),
            resetSamplingConsent: () => Promise.resolve(),
        } as unknown as CommandDeps;
        registerCommands({ subscriptions: [] } as never, deps);
    });

    const run = (command: string, ...args: unknown[]) => fake.registered.get(command)!(...args);
    const titles = (args: unknown[]) => args.filter((a): a is { title: string } => typeof a === 'object' && a !== null && 'title' in a).map(a => a.title);

    it('Delete cancels the focused running task after a modal confirmation', async () => {
        const focused = model.applyWire(wire('a', 'working'));
        fake.onWarning = (_message, _options, ...items) => items[0];
        await run(Commands.cancelTaskConfirm, focused);
        const [asked] = fake.messages;
        assert.equal(asked?.message, 'Cancel task slow_compute: a?');
        assert.deepEqual(asked?.args[0], { modal: true, detail: 'It stops its work.' });
        assert.deepEqual(titles(asked!.args), ['Cancel Task', 'Keep Running']);
        assert.deepEqual(cancelled, ['a']);
    });

    it('Keep Running (or Escape) leaves the task running', async () => {
        const focused = model.applyWire(wire('a', 'working'));
        fake.onWarning = (_message, _options, ...items) => items[1];
        await run(Commands.cancelTaskConfirm, focused);
        fake.onWarning = () => undefined;
        await run(Commands.cancelTaskConfirm, focused);
        assert.deepEqual(cancelled, []);
    });

    it('the row button cancels at once, without asking', async () => {
        const view = model.applyWire(wire('a', 'working'));
        await run(Commands.cancelTask, view);
        assert.deepEqual(cancelled, ['a']);
        assert.equal(fake.messages.filter(m => m.level === 'warning').length, 0);
    });

    it('a focused row that finished meanwhile is not cancelled, and the status bar says why', async () => {
        const focused = model.applyWire(wire('a', 'working'));
        model.applyWire({ ...wire('a', 'completed'), lastUpdatedAt: '2026-11-29T10:00:01.000Z' });
        await run(Commands.cancelTaskConfirm, focused);
        assert.deepEqual(cancelled, []);
        assert.equal(fake.messages.filter(m => m.level === 'warning').length, 0);
        assert.deepEqual(fake.messages.map(m => m.message), ['slow_compute: a is not running: nothing to cancel.']);
    });

    it('Delete on the Restricted Mode notice row does nothing', async () => {
        await run(Commands.cancelTaskConfirm, { kind: 'trustNotice', count: 2 });
        assert.deepEqual(cancelled, []);
        assert.deepEqual(fake.messages, []);
    });

    it("the row menu's Cancel Task… asks first, as Delete does; Keep Running leaves it; a finished row is not asked about", async () => {
        const row = model.applyWire(wire('a', 'working'));
        fake.onWarning = (_message, _options, ...items) => items[1];
        await run(Commands.cancelTaskConfirm, row);
        assert.deepEqual(cancelled, []);
        fake.onWarning = (_message, _options, ...items) => items[0];
        await run(Commands.cancelTaskConfirm, row);
        assert.deepEqual(cancelled, ['a']);
        assert.equal(fake.messages.filter(m => m.level === 'warning').length, 2);
        const done = model.applyWire(wire('b', 'completed'));
        await run(Commands.cancelTaskConfirm, done);
        assert.deepEqual(cancelled, ['a']);
        assert.equal(fake.messages.filter(m => m.level === 'warning').length, 2);
    });

    it('after a crash, Show Result opens the result kept here, and says in words when none was', async () => {
        model.applyWire(wire('opened', 'completed'));
        model.applyWire(wire('never', 'completed'));
        model.markLost();
        kept.add('opened');
        await run(Commands.showResult, model.get('opened'));
        await run(Commands.showResult, model.get('never'));
        assert.deepEqual(shown, ['opened']);
        assert.deepEqual(
            fake.messages.map(m => m.message),
            ['The result of slow_compute: never went with the server that stopped: it was not opened before.'],
        );
    });

    it('an answer given from the status bar item moves the keyboard on (the item goes once nothing waits); one from a row does not', async () => {
        const asking = model.applyWire(wire('asking', 'input_required'));
        withPrompt.add('asking');
        await run(Commands.respond, RESPOND_FROM_STATUS_BAR);
        await new Promise(setImmediate);
        assert.deepEqual(prompted, ['asking'], 'the one waiting question is shown');
        assert.deepEqual(focused, ['asking']);
        await run(Commands.respond, asking);
        await new Promise(setImmediate);
        assert.deepEqual(focused, ['asking'], 'a row keeps the keyboard itself');
        answered = false;
        await run(Commands.respond, RESPOND_FROM_STATUS_BAR);
        await new Promise(setImmediate);
        assert.deepEqual(focused, ['asking'], 'a question that went unanswered (the task ended elsewhere) moves nothing');
    });

    it('Show Result and Respond on a row act on that row, whichever others wait', async () => {
        await run(Commands.showResult, model.applyWire(wire('done', 'completed')));
        assert.deepEqual(shown, ['done']);
        model.applyWire(wire('other', 'input_required'));
        withPrompt.add('other');
        const asking = model.applyWire(wire('asking', 'input_required'));
        withPrompt.add('asking');
        await run(Commands.respond, asking);
        assert.deepEqual(prompted, ['asking']);
    });
});

describe('Respond on a task another client asks about', () => {
    let model: TaskModel;

    beforeEach(() => {
        fake.reset();
        model = new TaskModel();
        const deps = {
            logger: { scoped: () => ({ error: () => undefined }) },
            model,
            pendingInputs: { get: () => undefined },
            startedHere: new Set<string>(),
        } as unknown as CommandDeps;
        registerCommands({ subscriptions: [] } as never, deps);
    });

    const respond = (view?: TaskView) => fake.registered.get(Commands.respond)!(view);

    it("opens the Notifications Center, where VS Code's question hides after its toast, for a call not made from a chat", async () => {
        const view = model.applyWire(wire('toast', 'input_required', { clientName: 'Visual Studio Code' }));
        await respond(view);
        assert.deepEqual(fake.commands.map(c => c.id), ['notifications.showList']);
        assert.deepEqual(fake.messages, [], 'no message of its own');
    });

    it('opens the chat for a call made from a chat, where VS Code asks then; the status bar item (no row) finds the one waiting task', async () => {
        model.applyWire(wire('running', 'working', { clientName: 'code-server' }));
        model.applyWire(wire('in-chat', 'input_required', { clientName: 'code-server', chat: true }));
        await respond();
        assert.deepEqual(fake.commands.map(c => c.id), ['workbench.action.chat.open']);
        assert.deepEqual(fake.messages, []);
    });

    it('for a client with its own window, says so in the status bar only while the task waits', async () => {
        const view = model.applyWire({ ...wire('far', 'input_required', { clientName: 'Claude Desktop' }), statusMessage: "Waiting for the user: Delete 'a'?" });
        await respond(view);
        await respond(view);
        assert.deepEqual(fake.commands, [], 'nothing to open here');
        const [first, second] = fake.messages;
        assert.equal(second?.message, "$(bell-dot) slow_compute: far is waiting for an answer in the app that started it: Waiting for the user: Delete 'a'?");
        assert.equal(first?.disposed, true, 'a second Respond replaces the first message');
        assert.equal(second?.disposed, false);
        model.applyWire(wire('far', 'working', { clientName: 'Claude Desktop' }, '2026-11-29T10:00:01.000Z'));
        assert.equal(second?.disposed, true, 'gone once the task has its answer');
        assert.equal(fake.messages.filter(m => m.level !== 'status').length, 0, 'never a notification that would outlive the wait');
    });
});
