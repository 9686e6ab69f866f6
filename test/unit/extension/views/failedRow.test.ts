// A failed command's row (issue 46 item 7): one line with no log path, the tool's declared title
// rather than its name for a model, and a tooltip that keeps the message's lines apart.
import '../../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { endingLine, setServerToolTitles, statusInWords, type TaskView } from '../../../../extension/tasks/taskView.js';
import { toTreeItem } from '../../../../extension/views/taskTreeItem.js';

// A failed command's status message as the server words it (server/src/commands/status.ts).
const MESSAGE = [
    'exit 1 after 3.2 s: npm test',
    '2 failing tests:',
    '✖ parses dates (test/dates.test.js:12)',
    '  Expected values to be strictly equal: 41 !== 42',
    '✖ parses times (test/times.test.js:30)',
    'Task t1: read_output with task_id "t1" reads the whole output. Full log: /tmp/mcp-tasks/logs/t1.log',
].join('\n');

const failed: TaskView = {
    taskId: 't1',
    status: 'failed',
    statusMessage: statusInWords(MESSAGE, 'mcp-tasks-extension'),
    createdAt: '2026-12-04T18:00:00Z',
    lastUpdatedAt: '2026-12-04T18:00:04Z',
    ttl: 3_600_000,
    toolName: 'long_job',
    keyArgument: 'nightly',
    args: { label: 'nightly' },
};

describe("a failed command's row", () => {
    afterEach(() => setServerToolTitles([]));

    it('shows one line: the headline and the failure count, no log path', () => {
        const item = toTreeItem(failed, false, Date.parse('2026-12-04T18:01:00Z'));
        const description = String(item.description);
        assert.doesNotMatch(description, /[\n\r⏎]/);
        assert.doesNotMatch(description, /Full log|\/tmp\/|read_output/);
        assert.equal(item.label, 'Failed: nightly', 'the state first, where a narrow sidebar does not cut it');
        assert.match(description, /^exit 1 after 3\.2 s: npm test — 2 failing tests: · 4s/);
    });

    it("names the tool by its declared title, not its name for a model", () => {
        setServerToolTitles([{ name: 'long_job', title: 'Long job' }, { name: 'greet' }, { name: 'slow_compute', title: 'Demo: Slow Compute' }]);
        const item = toTreeItem(failed, false, Date.parse('2026-12-04T18:01:00Z'));
        assert.match(String(item.description), / · Long job$/);
        assert.doesNotMatch(String(item.description), /long_job/);
        assert.match(String(toTreeItem({ ...failed, toolName: 'slow_compute' }, false).description), / · slow_compute$/, 'a demo tool keeps its short name');
    });

    it('the tooltip keeps each line of the message on its own line', () => {
        const value = String((toTreeItem(failed, false).tooltip as { value: string }).value);
        assert.match(value, /npm test {2}\n2 failing tests:/);
        assert.match(value, /parses dates \\\(test\/dates\\\.test\\\.js:12\\\) {2}\n/);
        assert.doesNotMatch(value, /read_output/);
    });

    it('a long single line is cut, a short one kept whole', () => {
        assert.equal(endingLine('Declined'), 'Declined');
        assert.ok(endingLine(`exit 1: ${'x'.repeat(200)}`).length <= 80);
        assert.equal(endingLine('\nexit 2 after 1 s\n\nFull log: /tmp/x.log'), 'exit 2 after 1 s');
    });
});
