// What the activity bar shows for the Tasks view (no vscode import: unit-tested). VS Code names the
// view container after the badge's tooltip ("Testing - 1 failed tests"), so the tooltip is a sentence.
import * as l10n from '@vscode/l10n';
import type { TaskView } from '../tasks/taskView';

/** The number badge: the tasks waiting for the user's answer, in words; none when nothing waits. */
export function waitingBadge(running: readonly TaskView[]): { value: number; tooltip: string } | undefined {
    const waiting = running.filter(view => view.status === 'input_required').length;
    if (waiting === 0) {
        return undefined;
    }
    const tooltip = waiting === 1
        ? l10n.t('1 task needs your answer')
        : l10n.t({ message: '{0} tasks need your answer', args: [waiting], comment: ['{0} is a number of tasks waiting for an answer'] });
    return { value: waiting, tooltip };
}

/**
 * Whether the view shows work in progress (its progress bar, and a spinner on the activity bar). Not
 * while a task waits for an answer: VS Code shows the spinner in place of the number badge, which
 * would hide that the user is needed.
 */
export function showsWorkInProgress(running: readonly TaskView[]): boolean {
    return running.length > 0 && waitingBadge(running) === undefined;
}
