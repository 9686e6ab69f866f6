// A row's state leads its label (issue 49 item 8): a narrow sidebar (200% zoom) cuts a row's text
// at its end, and with the state first in the description it cut the state, leaving only the icon.
import '../../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskView } from '../../../../extension/tasks/taskView.js';
import { toTreeItem } from '../../../../extension/views/taskTreeItem.js';

const base: TaskView = {
    taskId: 't1',
    status: 'working',
    createdAt: '2026-12-08T10:00:00.000Z',
    lastUpdatedAt: '2026-12-08T10:00:04.000Z',
    ttl: 3_600_000,
    toolName: 'confirm_delete',
    keyArgument: 'important.txt',
    args: { filename: 'important.txt' },
};
const NOW = Date.parse('2026-12-08T10:00:04Z');

function row(view: Partial<TaskView>): { label: string; description: string; spoken: string } {
    const item = toTreeItem({ ...base, ...view }, false, NOW);
    return { label: String(item.label), description: String(item.description), spoken: String(item.accessibilityInformation?.label) };
}

describe("a row's state in words, first", () => {
    it('each state leads the label; the description goes on from there', () => {
        const cases: [Partial<TaskView>, string, string][] = [
            [{}, 'Running: important.txt', '<1m · confirm_delete'],
            [{ progress: { progress: 2, total: 5 } }, 'Running: important.txt', '40% · <1m · confirm_delete'],
            [{ status: 'input_required' }, 'Needs input: important.txt', '<1m · confirm_delete'],
            [{ status: 'completed', statusMessage: 'Kept the file' }, 'Completed: important.txt', 'Kept the file · 4s · confirm_delete'],
            [{ status: 'failed', statusMessage: 'exit 2' }, 'Failed: important.txt', 'exit 2 · 4s · confirm_delete'],
            [{ status: 'cancelled' }, 'Cancelled: important.txt', '4s · confirm_delete'],
            [{ status: 'failed', statusMessage: 'The user denied sampling' }, 'Denied by you: important.txt', '4s · confirm_delete'],
            [{ stoppedWaitingAt: '2026-12-08T10:00:02.000Z', clientName: 'Visual Studio Code' }, 'Running: important.txt', 'Copilot stopped waiting · <1m · confirm_delete'],
            [{ lost: true }, 'Lost: important.txt', 'server stopped · <1m · confirm_delete'],
            [{ lost: true, status: 'completed' }, 'Completed: important.txt', 'on a previous server · 4s · confirm_delete'],
            [{ lost: true, expired: true, status: 'input_required' }, 'Expired: important.txt', 'not answered in time · <1m · confirm_delete'],
        ];
        for (const [view, label, description] of cases) {
            assert.deepEqual({ label: row(view).label, description: row(view).description }, { label, description }, JSON.stringify(view));
        }
    });

    it('a screen reader still hears the tool, its argument, then the state', () => {
        assert.equal(row({ status: 'input_required' }).spoken, 'confirm_delete: important.txt, needs input, under a minute so far, confirm_delete');
        assert.equal(row({ status: 'completed', statusMessage: 'Kept the file' }).spoken, 'confirm_delete: important.txt, completed, Kept the file, in 4 seconds, confirm_delete');
    });

    it('a row without a key argument leads with its state too', () => {
        assert.equal(row({ keyArgument: undefined, toolName: 'failing_job', status: 'failed' }).label, 'Failed: failing_job');
    });
});
