// Restart Server and new settings ask before they stop running tasks; only an explicit answer stops them.
import { fake } from '../../../support/fakeVscode.js';
import { promisesDrained } from '../../../support/wait.js';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { TaskModel } from '../../../../extension/tasks/taskModel.js';
import { confirmRestart, untilStopAllowed } from '../../../../extension/views/confirmStop.js';

const INFO = 'dev.mcp-tasks/task-info';

function wire(taskId: string, status: string): Record<string, unknown> {
    const at = '2026-11-29T10:00:00.000Z';
    return { taskId, status, createdAt: at, lastUpdatedAt: at, ttl: 60_000, _meta: { [INFO]: { toolName: 'slow_compute', args: {}, keyArgument: taskId } } };
}

/** Answers the next warning with the button titled `title` (undefined: dismissed); records what was asked. */
function answer(title: string | undefined): { detail?: string; buttons: string[] } {
    const seen: { detail?: string; buttons: string[] } = { buttons: [] };
    fake.onWarning = (_message, options, ...items) => {
        seen.detail = (options as { detail?: string }).detail;
        seen.buttons = (items as { title: string }[]).map(item => item.title);
        return (items as { title: string }[]).find(item => item.title === title);
    };
    return seen;
}

describe('confirming a stop under running tasks', () => {
    let model: TaskModel;

    beforeEach(() => {
        fake.reset();
        model = new TaskModel();
    });

    it('restarts without asking when nothing runs', async () => {
        model.applyWire(wire('done', 'completed'));
        assert.equal(await confirmRestart(model), true);
        assert.deepEqual(fake.messages, []);
    });

    it('names the running tasks, and restarts only on Restart', async () => {
        model.applyWire(wire('report', 'working'));
        model.applyWire(wire('ask', 'input_required'));
        const seen = answer(undefined);
        assert.equal(await confirmRestart(model), false, 'dismissed: nothing stops');
        assert.equal(seen.detail, '2 running task(s) will stop: slow_compute: report, slow_compute: ask.');
        answer('Restart');
        assert.equal(await confirmRestart(model), true);
    });

    it('a refused dialog stops nothing', async () => {
        model.applyWire(wire('report', 'working'));
        fake.onWarning = () => {
            throw new Error('DialogService: refused to show dialog in tests.');
        };
        assert.equal(await confirmRestart(model), false);
    });

    it('new settings: Restart Now goes ahead; otherwise they wait until the running tasks end', async () => {
        model.applyWire(wire('report', 'working'));
        const seen = answer('Restart Now');
        await untilStopAllowed(model);
        assert.deepEqual(seen.buttons, ['Restart Now', 'When They Finish']);

        answer('When They Finish');
        let allowed = false;
        const waiting = untilStopAllowed(model).then(() => (allowed = true));
        await promisesDrained();
        assert.equal(allowed, false, 'still waiting while the task runs');
        model.applyWire({ ...wire('report', 'completed'), lastUpdatedAt: '2026-11-29T10:00:05.000Z' });
        await waiting;
        assert.equal(allowed, true);
    });
});
