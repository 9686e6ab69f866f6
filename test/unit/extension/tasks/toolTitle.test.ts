import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { vscodeTaskEntries } from '../../../../extension/commandTools/commandSources';
import { rowLabel, setToolTitles, taskLabel } from '../../../../extension/tasks/taskView';

describe('a tasks.json task is named by its label', () => {
    afterEach(() => setToolTitles(new Map()));

    it('rows and labels read the task\'s label, not vscode_task_…', () => {
        const { titles } = vscodeTaskEntries(true, [{ label: 'my build', folder: '/w' }]);
        setToolTitles(titles);
        assert.equal(rowLabel({ toolName: 'vscode_task_my_build' }), 'my build');
        assert.equal(taskLabel({ toolName: 'vscode_task_my_build' }), 'my build');
    });

    it('other tools keep their names', () => {
        setToolTitles(vscodeTaskEntries(true, [{ label: 'build', folder: '/w' }]).titles);
        assert.equal(rowLabel({ toolName: 'slow_compute' }), 'slow_compute');
        assert.equal(taskLabel({ toolName: 'slow_compute', keyArgument: 'q' }), 'slow_compute: q');
    });

    it('a task no longer exposed reads as its tool again', () => {
        setToolTitles(vscodeTaskEntries(true, [{ label: 'build', folder: '/w' }]).titles);
        setToolTitles(vscodeTaskEntries(false, [{ label: 'build', folder: '/w' }]).titles);
        assert.equal(rowLabel({ toolName: 'vscode_task_build' }), 'vscode_task_build');
    });
});
