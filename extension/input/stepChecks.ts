// Checks and converts what the user enters for one prompt step, and the whole answer at the
// end. Kept free of `vscode`; the messages are the inline errors the user sees.
import * as l10n from '@vscode/l10n';
import type { MultiEnumStep, NumberStep, PromptStep, StepValue, StringFormat, StringStep } from './schemaPlan';

/**
 * The inline error for what the user entered, or undefined when it is fine.
 * Text steps take the typed string; choice steps take the chosen value(s)
 * ("true"/"false" for booleans, an array for multi-select).
 */
export function validateStep(step: PromptStep, raw: string | readonly string[]): string | undefined {
    const parsed = parse(step, raw);
    if ('error' in parsed) {
        return parsed.error;
    }
    return parsed.value === undefined ? undefined : checkValue(step, parsed.value);
}

/** The typed value for what the user entered; undefined means "leave this property out". Throws if invalid. */
export function coerceStep(step: PromptStep, raw: string | readonly string[]): StepValue | undefined {
    const error = validateStep(step, raw);
    if (error !== undefined) {
        throw new Error(`${step.title}: ${error}`);
    }
    const parsed = parse(step, raw);
    return 'value' in parsed ? parsed.value : undefined;
}

/** Final check of a whole answer: every required value present, every value of the right type and in range. */
export function validateContent(steps: readonly PromptStep[], content: Readonly<Record<string, unknown>>): string | undefined {
    for (const step of steps) {
        const value = content[step.key];
        if (value === undefined) {
            if (step.required) {
                return `${step.title}: ${l10n.t('Required')}`;
            }
            continue;
        }
        const error = checkValue(step, value);
        if (error !== undefined) {
            return `${step.title}: ${error}`;
        }
    }
    const known = new Set(steps.map(s => s.key));
    const extra = Object.keys(content).find(k => !known.has(k));
    return extra === undefined ? undefined : l10n.t('Unexpected property "{0}"', extra);
}

type Parsed = { value: StepValue | undefined } | { error: string };

const NUMBER_SYNTAX = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function parse(step: PromptStep, raw: string | readonly string[]): Parsed {
    if (step.kind === 'multiEnum') {
        const values = typeof raw === 'string' ? raw.split(',').map(v => v.trim()).filter(v => v !== '') : [...raw];
        if (values.length === 0 && !step.required) {
            return { value: undefined };
        }
        return { value: values };
    }
    if (typeof raw !== 'string') {
        return { error: l10n.t('Enter a single value') };
    }
    // Free text keeps its spaces; everything else is compared without them.
    const text = step.kind === 'string' && step.format === undefined ? raw : raw.trim();
    // An enum may offer the empty string as a choice of its own ("no step fails"): picking it is an answer.
    if (text === '' && step.kind === 'enum' && step.options.some(option => option.value === '')) {
        return { value: '' };
    }
    if (text === '') {
        return step.required ? { error: l10n.t('Required') } : { value: undefined };
    }
    switch (step.kind) {
        case 'string':
        case 'enum':
            return { value: text };
        case 'boolean': {
            const lower = text.toLowerCase();
            if (lower === 'true' || lower === 'yes') {
                return { value: true };
            }
            if (lower === 'false' || lower === 'no') {
                return { value: false };
            }
            return { error: l10n.t('Enter yes or no') };
        }
        case 'number':
        case 'integer': {
            const n = NUMBER_SYNTAX.test(text) ? Number(text) : NaN;
            if (!Number.isFinite(n)) {
                return { error: step.kind === 'integer' ? l10n.t('Must be an integer') : l10n.t('Must be a number') };
            }
            return { value: n };
        }
    }
}

/** Checks a typed value against the step's type and constraints. */
function checkValue(step: PromptStep, value: unknown): string | undefined {
    switch (step.kind) {
        case 'string':
            return typeof value === 'string' ? checkString(step, value) : l10n.t('Must be text');
        case 'number':
        case 'integer':
            return typeof value === 'number' ? checkNumber(step, value) : step.kind === 'integer' ? l10n.t('Must be an integer') : l10n.t('Must be a number');
        case 'boolean':
            return typeof value === 'boolean' ? undefined : l10n.t('Must be yes or no');
        case 'enum':
            return typeof value === 'string' && step.options.some(o => o.value === value) ? undefined : l10n.t('Must be one of: {0}', step.options.map(o => o.label).join(', '));
        case 'multiEnum':
            return checkMulti(step, value);
    }
}

function checkString(step: StringStep, value: string): string | undefined {
    // JSON Schema counts characters as code points, not UTF-16 units.
    const length = [...value].length;
    if (step.minLength !== undefined && length < step.minLength) {
        return step.minLength === 1 ? l10n.t('Must be at least 1 character') : l10n.t('Must be at least {0} characters', step.minLength);
    }
    if (step.maxLength !== undefined && length > step.maxLength) {
        return step.maxLength === 1 ? l10n.t('Must be at most 1 character') : l10n.t('Must be at most {0} characters', step.maxLength);
    }
    const formatError = step.format === undefined ? undefined : checkFormat(step.format, value);
    if (formatError !== undefined) {
        return formatError;
    }
    if (step.pattern !== undefined && !compilePattern(step.pattern)?.test(value)) {
        return l10n.t('Must match the pattern {0}', step.pattern);
    }
    return undefined;
}

function checkNumber(step: NumberStep, value: number): string | undefined {
    if (!Number.isFinite(value)) {
        return l10n.t('Must be a number');
    }
    if (step.kind === 'integer' && !Number.isInteger(value)) {
        return l10n.t('Must be an integer');
    }
    if (step.minimum !== undefined && value < step.minimum) {
        return l10n.t('Must be ≥ {0}', step.minimum);
    }
    if (step.exclusiveMinimum !== undefined && value <= step.exclusiveMinimum) {
        return l10n.t('Must be > {0}', step.exclusiveMinimum);
    }
    if (step.maximum !== undefined && value > step.maximum) {
        return l10n.t('Must be ≤ {0}', step.maximum);
    }
    if (step.exclusiveMaximum !== undefined && value >= step.exclusiveMaximum) {
        return l10n.t('Must be < {0}', step.exclusiveMaximum);
    }
    return undefined;
}

function checkMulti(step: MultiEnumStep, value: unknown): string | undefined {
    if (!Array.isArray(value) || !value.every(v => typeof v === 'string')) {
        return l10n.t('Must be a list of choices');
    }
    const unknown = value.find(v => !step.options.some(o => o.value === v));
    if (unknown !== undefined) {
        return l10n.t('"{0}" is not one of: {1}', unknown, step.options.map(o => o.label).join(', '));
    }
    if (new Set(value).size !== value.length) {
        return l10n.t('Pick each choice at most once');
    }
    if (step.minItems !== undefined && value.length < step.minItems) {
        return l10n.t('Pick at least {0}', step.minItems);
    }
    if (step.maxItems !== undefined && value.length > step.maxItems) {
        return l10n.t('Pick at most {0}', step.maxItems);
    }
    return undefined;
}

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

function checkFormat(format: StringFormat, value: string): string | undefined {
    switch (format) {
        case 'email':
            return EMAIL.test(value) ? undefined : l10n.t('Enter a valid email address');
        case 'uri':
            return isAbsoluteUri(value) ? undefined : l10n.t('Enter a valid absolute URI, such as https://example.com');
        case 'date':
            return isCalendarDate(value) ? undefined : l10n.t('Enter a valid date as YYYY-MM-DD');
        case 'date-time':
            return isDateTime(value) ? undefined : l10n.t('Enter a valid date and time, such as 2025-01-31T09:30:00Z');
    }
}

function isAbsoluteUri(value: string): boolean {
    if (/\s/.test(value) || !URI_SCHEME.test(value)) {
        return false;
    }
    try {
        new URL(value);
        return true;
    } catch {
        return false;
    }
}

function isCalendarDate(value: string): boolean {
    const m = DATE.exec(value);
    if (!m) {
        return false;
    }
    const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (month < 1 || month > 12 || day < 1) {
        return false;
    }
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
    return day <= days;
}

function isDateTime(value: string): boolean {
    const m = DATE_TIME.exec(value);
    if (!m || !isCalendarDate(m[1]!)) {
        return false;
    }
    const [hour, minute, second] = [Number(m[2]), Number(m[3]), Number(m[4])];
    // RFC 3339 allows second 60 for leap seconds.
    if (hour > 23 || minute > 59 || second > 60) {
        return false;
    }
    return m[7] === undefined || (Number(m[8]) <= 23 && Number(m[9]) <= 59);
}

// JSON Schema patterns are ECMA-262 with Unicode; fall back to non-unicode for patterns written for plain JS.
export function compilePattern(pattern: string): RegExp | undefined {
    for (const flags of ['u', '']) {
        try {
            return new RegExp(pattern, flags);
        } catch {
            // try the next flag set
        }
    }
    return undefined;
}
