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
 * `view`, with the percent now shown; undefined when nothing it shows would change. A task that
 * waits for an answer says so: the user is the one it waits for.
 */
export function nextProgressStep(view: TaskView, shownPercent: number, shownMessage: string | undefined): { step: ProgressStep; percent: number; message?: string } | undefined {
    if (isTerminal(view.status)) {
        return undefined;
    }
    const known = progressPercent(view.progress);
    const percent = known ?? shownPercent;
    // The bar has no number on it: the percent leads the words, as the row shows it.
    const words = view.progress ? view.progress.message : view.statusMessage;
    const message =
        view.status === 'input_required'
            ? l10n.t('waiting for your answer (Respond in the MCP Tasks view)')
            : known === undefined
              ? words
              : words
                ? l10n.t({ message: '{0}% · {1}', args: [known, words], comment: ['{0} is a percent, {1} what the task says it is doing'] })
                : `${known}%`;
    const increment = percent > shownPercent ? percent - shownPercent : undefined;
    if (increment === undefined && (message === undefined || message === shownMessage)) {
        return undefined;
    }
    const step: ProgressStep = {};
    if (increment !== undefined) {
        step.increment = increment;
    }
    if (message !== undefined && message !== shownMessage) {
        step.message = message;
    }
    return { step, percent: Math.max(percent, shownPercent), message: message ?? shownMessage };
}
