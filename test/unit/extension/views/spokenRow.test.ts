// Issue 49 item 9: accessible names read as sentences: a row's "·" and short times become words,
// and a tool picker entry carries one readable sentence, not the whole description.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskView } from '../../../../extension/tasks/taskView.js';
import { taskDescription } from '../../../../extension/tasks/taskView.js';
import { pickerDetail, spokenRow } from '../../../../extension/views/spokenRow.js';

describe('a row read aloud', () => {
    it('says a failure and its time in words, as VS Code says "Failed, in 600ms"', () => {
        assert.equal(spokenRow('failing_job', 'failed · exit 1 · 12s'), 'failing_job, failed, exit 1, in 12 seconds');
        assert.equal(spokenRow('deploy', 'completed · 2m 05s'), 'deploy, completed, in 2 minutes 5 seconds');
    });

    it('says a running task\'s percent and time so far in words', () => {
        assert.equal(spokenRow('slow_compute', 'running · 40% · <1m'), 'slow_compute, running, 40 percent, under a minute so far');
        assert.equal(spokenRow('important.txt', 'needs input · 3m · confirm_delete'), 'important.txt, needs input, 3 minutes so far, confirm_delete');
        assert.equal(spokenRow('build', 'running · 1h 07m'), 'build, running, 1 hours 7 minutes');
    });

    it('reads a real row\'s description with no middle dot or "<1m" left', () => {
        const view = { taskId: 't1', toolName: 'slow_compute', status: 'working', createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:00Z', progress: { progress: 2, total: 5 } } as TaskView;
        const spoken = spokenRow('slow_compute', taskDescription(view, Date.parse('2026-01-01T00:00:20Z')));
        assert.doesNotMatch(spoken, /·|<1m|%/);
        assert.match(spoken, /^slow_compute, running, 40 percent, under a minute so far$/);
    });

    it('keeps other words, such as a task\'s own message, as they are', () => {
        assert.equal(spokenRow('confirm_delete', 'completed · Kept the file · 5s'), 'confirm_delete, completed, Kept the file, in 5 seconds');
    });
});

describe('a tool picker entry\'s detail', () => {
    it('is the description\'s first sentence, on one line', () => {
        assert.equal(pickerDetail('Counts to a number slowly.\nReports progress on each step. Can be cancelled.'), 'Counts to a number slowly.');
    });

    it('is cut at a word, with an ellipsis, when the first sentence is long', () => {
        const long = `Runs ${'a very long command line '.repeat(20)}and more`;
        const detail = pickerDetail(long)!;
        assert.ok(detail.length <= 120, detail);
        assert.match(detail, /command…$|line…$|long…$|very…$|a…$/);
    });

    it('keeps a version number or file name whole, and gives nothing for no description', () => {
        assert.equal(pickerDetail('Deploys v1.2 to staging'), 'Deploys v1.2 to staging');
        assert.equal(pickerDetail(undefined), undefined);
        assert.equal(pickerDetail('   '), undefined);
    });
});
