// The words on each prompt, kept free of `vscode` so they are unit-tested with the plan.
import * as l10n from '@vscode/l10n';
import { stepLabel, type EnumOption, type PromptStep, type StringFormat } from './schemaPlan';

const TITLE_LIMIT = 100;

/** One line for a quick input title; `truncated` tells the caller to show the full text elsewhere. */
export function oneLine(text: string, limit = TITLE_LIMIT): { text: string; truncated: boolean } {
    const flat = text.replace(/\s+/g, ' ').trim();
    if ([...flat].length <= limit) {
        return { text: flat, truncated: false };
    }
    return { text: `${[...flat].slice(0, limit - 1).join('').trimEnd()}…`, truncated: true };
}

/** "<heading> (step i of n)", with i counted from 1; the heading alone for a one-step form. */
export function stepTitle(heading: string, i: number, n: number): string {
    return n > 1 ? `${heading} (${stepLabel(i, n)})` : heading;
}

/** A choice's label: an empty value (a schema's "none of these") gets words instead of a blank row. */
export function choiceLabel(label: string): string {
    return label.trim() === '' ? l10n.t({ message: '(none)', comment: ['A choice whose value is empty, such as "no step should fail"'] }) : label;
}

/**
 * A single choice's items: each labelled in words, never with its raw value beside it (a person
 * reads "Keep the file", not "keep"). `skip` says whether to offer Skip: not when a choice already
 * means "nothing" (an empty value, shown as "(none)"), where the two would read the same.
 */
export function singleChoices(options: readonly EnumOption[], required: boolean): { choices: { label: string; value: string }[]; skip: boolean } {
    return {
        choices: options.map(o => ({ label: choiceLabel(o.label), value: o.value })),
        skip: !required && !options.some(o => o.value.trim() === ''),
    };
}

/** The line under an input box, or the placeholder of a quick pick: which field, and what it is for. */
export function fieldPrompt(step: PromptStep): string {
    const name = step.required ? step.title : l10n.t({ message: '{0} (optional)', args: [step.title], comment: ['{0} is the name of a form field'] });
    return step.description ? `${name}: ${step.description}` : name;
}

/** The example an empty box shows for each checked string format (not translated: they are the formats themselves). */
const FORMAT_PLACEHOLDERS: Record<StringFormat, string> = {
    email: 'name@example.com',
    uri: 'https://example.com/…',
    date: 'YYYY-MM-DD',
    'date-time': 'YYYY-MM-DDThh:mm:ssZ',
};

/** What an empty input box shows: the expected shape of the value. */
export function inputPlaceholder(step: PromptStep): string {
    const parts: string[] = [];
    if (step.kind === 'string') {
        parts.push(step.format ? FORMAT_PLACEHOLDERS[step.format] : lengthHint(step.minLength, step.maxLength));
    } else if (step.kind === 'number' || step.kind === 'integer') {
        parts.push(step.kind === 'integer' ? l10n.t('A whole number') : l10n.t('A number'), rangeHint(step));
    }
    if (!step.required) {
        parts.push(l10n.t('leave empty to skip'));
    }
    return parts.filter(p => p !== '').join(', ');
}

function lengthHint(min: number | undefined, max: number | undefined): string {
    if (min !== undefined && max !== undefined) {
        return l10n.t('{0} to {1} characters', min, max);
    }
    if (min !== undefined) {
        return l10n.t('At least {0} characters', min);
    }
    return max !== undefined ? l10n.t('At most {0} characters', max) : '';
}

function rangeHint(step: { minimum?: number; maximum?: number; exclusiveMinimum?: number; exclusiveMaximum?: number }): string {
    const low = step.minimum !== undefined ? `≥ ${step.minimum}` : step.exclusiveMinimum !== undefined ? `> ${step.exclusiveMinimum}` : undefined;
    const high = step.maximum !== undefined ? `≤ ${step.maximum}` : step.exclusiveMaximum !== undefined ? `< ${step.exclusiveMaximum}` : undefined;
    return low && high ? l10n.t({ message: '{0} and {1}', args: [low, high], comment: ['A number range, such as "≥ 1 and ≤ 10"'] }) : (low ?? high ?? '');
}
