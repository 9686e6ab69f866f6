// The words of the status bar item (no vscode import: unit-tested). A task's sub-tasks are steps
// of it, not tasks of their own: one deploy with a build and a test step reads "1 task (2 steps)".
import * as l10n from '@vscode/l10n';
import { progressPercent, taskLabel, type TaskView } from '../tasks/taskView';

export interface RunningCount {
    /** Running tasks whose parent is not running with them: what the user started. */
    tasks: number;
    /** Running sub-tasks of those. */
    steps: number;
    /** Running tasks, sub-tasks included, that wait for an answer. */
    waiting: number;
}

export function countRunning(running: readonly TaskView[]): RunningCount {
    const ids = new Set(running.map(view => view.taskId));
    const steps = running.filter(view => view.parentTaskId !== undefined && ids.has(view.parentTaskId)).length;
    return { tasks: running.length - steps, steps, waiting: running.filter(view => view.status === 'input_required').length };
}

/** "1 task", "2 tasks (3 steps)". */
export function countText({ tasks, steps }: RunningCount): string {
    const count = tasks === 1 ? l10n.t('1 task') : l10n.t('{0} tasks', tasks);
    if (steps === 0) {
        return count;
    }
    const inSteps = steps === 1 ? l10n.t('1 step') : l10n.t({ message: '{0} steps', args: [steps], comment: ['{0} is a number of sub-tasks'] });
    return `${count} (${inSteps})`;
}

/**
 * What a screen reader says for the item: plain words, no icon names or Markdown. `latest` is
 * the task whose progress the item shows.
 */
export function runningLabel(running: readonly TaskView[], latest?: TaskView): string {
    const count = countRunning(running);
    const parts = [l10n.t({ message: 'MCP Tasks: {0} running', args: [countText(count)], comment: ['{0} is a count such as "1 task (2 steps)"'] })];
    const percent = progressPercent(latest?.progress);
    if (count.waiting > 0) {
        parts.push(l10n.t({ message: '{0} needs input; activate to answer', args: [count.waiting], comment: ['{0} is a number of tasks waiting for an answer'] }));
    } else if (latest && percent !== undefined) {
        parts.push(l10n.t({ message: '{0} at {1} percent', args: [taskLabel(latest), percent], comment: ['{0} is a task, {1} a number'] }));
    }
    return parts.join(', ');
}

/** The screen reader's words for a server problem. */
export function problemLabel(problem: string): string {
    return l10n.t({ message: 'MCP Tasks: the server has a problem: {0}. Activate to open the log.', args: [problem], comment: ['{0} describes a server problem'] });
}
