/** What "Wait for the result" shows in its progress notification as a task moves (no vscode import: unit-tested). */
import * as l10n from '@vscode/l10n';
import { isTerminal, progressPercent, type TaskView } from './taskView';

/** One report for VS Code's progress: it adds `increment`s up, so each carries only what is new. */
export interface ProgressStep {
    increment?: number;
    message?: string;
}

/**
 * The report that brings a notification that showed `shownPercent` (and `shownMessage`) up to
 * `view`, with the percent now shown; undefined when nothing it shows would change. The words
 * change only with the task's state (running, waiting for an answer): a screen reader reads the
 * notification again each time its message changes, so the task's own words and percent per
 * progress tick would be read out a dozen times a run. The percent moves the bar alone; the
 * task's row in the Tasks view has its words.
 */
export function nextProgressStep(view: TaskView, shownPercent: number, shownMessage: string | undefined): { step: ProgressStep; percent: number; message?: string } | undefined {
    if (isTerminal(view.status)) {
        return undefined;
    }
    const percent = progressPercent(view.progress) ?? shownPercent;
    const message =
        view.status === 'input_required'
            ? l10n.t('waiting for your answer (Respond in the MCP Tasks view)')
            : l10n.t('running (the MCP Tasks view shows its progress)');
    const increment = percent > shownPercent ? percent - shownPercent : undefined;
    if (increment === undefined && message === shownMessage) {
        return undefined;
    }
    const step: ProgressStep = {};
    if (increment !== undefined) {
        step.increment = increment;
    }
    if (message !== shownMessage) {
        step.message = message;
    }
    return { step, percent: Math.max(percent, shownPercent), message };
}
