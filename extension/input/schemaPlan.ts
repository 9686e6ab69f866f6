// Turns a flat JSON schema (an MCP elicitation requestedSchema or a tool inputSchema) into
// one prompt step per property, and checks and converts what the user types for each.
// Kept free of `vscode` so every rule here runs under plain node:test. The checks on
// answers live in stepChecks.ts and are re-exported here.
import * as l10n from '@vscode/l10n';
import { compilePattern } from './stepChecks';

export { coerceStep, validateContent, validateStep } from './stepChecks';

export type StringFormat = 'email' | 'uri' | 'date' | 'date-time';

export interface EnumOption {
    value: string;
    /** What the user sees: the oneOf/anyOf title or legacy enumName, else the value itself. */
    label: string;
}

interface StepBase {
    key: string;
    /** The schema's title, or the property key when it has none. */
    title: string;
    description?: string;
    required: boolean;
}

export interface StringStep extends StepBase {
    kind: 'string';
    default?: string;
    minLength?: number;
    maxLength?: number;
    pattern?: string;
    format?: StringFormat;
}

export interface NumberStep extends StepBase {
    kind: 'number' | 'integer';
    default?: number;
    minimum?: number;
    maximum?: number;
    exclusiveMinimum?: number;
    exclusiveMaximum?: number;
}

export interface BooleanStep extends StepBase {
    kind: 'boolean';
    default?: boolean;
}

export interface EnumStep extends StepBase {
    kind: 'enum';
    options: EnumOption[];
    default?: string;
}

export interface MultiEnumStep extends StepBase {
    kind: 'multiEnum';
    options: EnumOption[];
    default?: string[];
    minItems?: number;
    maxItems?: number;
}

export type PromptStep = StringStep | NumberStep | BooleanStep | EnumStep | MultiEnumStep;
export type StepValue = string | number | boolean | string[];
export type PlanResult = { ok: true; steps: PromptStep[] } | { ok: false; error: string };

const FORMATS: readonly string[] = ['email', 'uri', 'date', 'date-time'];
// Keywords that change what a value may be and that a flat prompt cannot honour.
const UNSUPPORTED_KEYWORDS = ['$ref', '$dynamicRef', 'allOf', 'not', 'if', 'then', 'else', 'prefixItems', 'contains', 'multipleOf'];

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalNumber(value: unknown): number | undefined {
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Copies each of `keys` that the property holds as a finite number onto the step. */
function copyNumbers<S extends object>(step: S, property: Json, keys: (keyof S & string)[]): void {
    for (const key of keys) {
        const value = optionalNumber(property[key]);
        if (value !== undefined) {
            (step as Record<string, unknown>)[key] = value;
        }
    }
}

class PlanError extends Error {}

export function planFromSchema(schema: unknown): PlanResult {
    try {
        return { ok: true, steps: buildSteps(schema) };
    } catch (err) {
        if (err instanceof PlanError) {
            return { ok: false, error: err.message };
        }
        throw err;
    }
}

function buildSteps(schema: unknown): PromptStep[] {
    if (!isObject(schema)) {
        throw new PlanError(l10n.t('The schema is not a JSON object.'));
    }
    if (schema.type !== undefined && schema.type !== 'object') {
        throw new PlanError(l10n.t('The schema\'s top-level type is {0}; only "object" with flat properties is supported.', JSON.stringify(schema.type)));
    }
    for (const keyword of ['$ref', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'patternProperties']) {
        if (schema[keyword] !== undefined) {
            throw new PlanError(l10n.t('The schema uses "{0}" at the top level, which cannot be shown as a form.', keyword));
        }
    }
    const properties = schema.properties ?? {};
    if (!isObject(properties)) {
        throw new PlanError(l10n.t('The schema\'s "properties" is not an object.'));
    }
    const required = schema.required ?? [];
    if (!Array.isArray(required) || !required.every(k => typeof k === 'string')) {
        throw new PlanError(l10n.t('The schema\'s "required" is not a list of property names.'));
    }
    for (const key of required) {
        if (!Object.hasOwn(properties, key)) {
            throw new PlanError(l10n.t('Property "{0}" is required but not defined in "properties".', key));
        }
    }
    return Object.entries(properties).map(([key, property]) => buildStep(key, property, required.includes(key)));
}

function buildStep(key: string, property: unknown, required: boolean): PromptStep {
    const fail = (what: string): never => {
        throw new PlanError(l10n.t({ message: 'Property "{0}" {1}, which cannot be shown as a form field.', args: [key, what], comment: ['{1} says what is wrong with the property, such as "is a nested object"'] }));
    };
    if (!isObject(property)) {
        return fail(l10n.t('is not a schema object'));
    }
    if (property.type === 'object' || property.properties !== undefined) {
        return fail(l10n.t('is a nested object'));
    }
    for (const keyword of UNSUPPORTED_KEYWORDS) {
        if (property[keyword] !== undefined) {
            fail(l10n.t('uses "{0}"', keyword));
        }
    }
    const base: StepBase = {
        key,
        title: typeof property.title === 'string' && property.title.trim() ? property.title : key,
        required,
    };
    if (typeof property.description === 'string' && property.description.trim()) {
        base.description = property.description;
    }

    const type = singleType(property.type, fail);
    if (type === 'array') {
        return multiEnumStep(base, property, fail);
    }
    const options = enumOptions(property, fail);
    if (options) {
        if (type !== undefined && type !== 'string') {
            fail(l10n.t('is a {0} enum (only string choices are supported)', String(type)));
        }
        const step: EnumStep = { ...base, kind: 'enum', options };
        if (typeof property.default === 'string' && options.some(o => o.value === property.default)) {
            step.default = property.default;
        }
        return step;
    }
    switch (type) {
        case 'string':
            return stringStep(base, property, fail);
        case 'number':
        case 'integer':
            return numberStep(base, type, property);
        case 'boolean': {
            const step: BooleanStep = { ...base, kind: 'boolean' };
            if (typeof property.default === 'boolean') {
                step.default = property.default;
            }
            return step;
        }
        case 'object':
            return fail(l10n.t('is a nested object'));
        case undefined:
            return fail(l10n.t('has no "type"'));
        default:
            return fail(l10n.t('has type {0}', JSON.stringify(type)));
    }
}

/**
 * The property's one type. `["string", "null"]` (zod's `.nullable()`) counts as "string":
 * the form never produces null, and a value of the other type is always acceptable.
 */
function singleType(type: unknown, fail: (what: string) => never): unknown {
    if (!Array.isArray(type)) {
        return type;
    }
    const nonNull = type.filter(t => t !== 'null');
    return nonNull.length === 1 ? nonNull[0] : fail(l10n.t('has several types ({0})', JSON.stringify(type)));
}

/** Single-choice options from `enum` (+ legacy `enumNames`), `oneOf: [{const, title}]` or `const`; undefined if none. */
function enumOptions(property: Json, fail: (what: string) => never): EnumOption[] | undefined {
    if (property.anyOf !== undefined) {
        fail(l10n.t('uses "{0}"', 'anyOf'));
    }
    if (property.oneOf !== undefined) {
        return constOptions(property.oneOf, 'oneOf', fail);
    }
    if (property.enum !== undefined) {
        const values = property.enum;
        if (!Array.isArray(values) || values.length === 0 || !values.every(v => typeof v === 'string')) {
            return fail(l10n.t('has an "enum" that is not a non-empty list of strings'));
        }
        const names = Array.isArray(property.enumNames) ? property.enumNames : [];
        return values.map((value, i) => ({ value, label: typeof names[i] === 'string' && names[i] ? names[i] : value }));
    }
    if (property.const !== undefined) {
        if (typeof property.const !== 'string') {
            return fail(l10n.t('has a non-string "const"'));
        }
        return [{ value: property.const, label: property.const }];
    }
    return undefined;
}

function constOptions(list: unknown, keyword: string, fail: (what: string) => never): EnumOption[] {
    if (!Array.isArray(list) || list.length === 0) {
        return fail(l10n.t('has an empty or invalid "{0}"', keyword));
    }
    return list.map(entry => {
        if (!isObject(entry) || typeof entry.const !== 'string') {
            return fail(l10n.t('uses "{0}" with entries other than {const, title}', keyword));
        }
        return { value: entry.const, label: typeof entry.title === 'string' && entry.title ? entry.title : entry.const };
    });
}

function multiEnumStep(base: StepBase, property: Json, fail: (what: string) => never): MultiEnumStep {
    const items = property.items;
    if (!isObject(items)) {
        return fail(l10n.t('is an array without an "items" schema'));
    }
    let options: EnumOption[];
    if (items.anyOf !== undefined) {
        options = constOptions(items.anyOf, 'items.anyOf', fail);
    } else if (items.oneOf !== undefined) {
        options = constOptions(items.oneOf, 'items.oneOf', fail);
    } else if (Array.isArray(items.enum) && items.enum.length > 0 && items.enum.every(v => typeof v === 'string') && (items.type === undefined || items.type === 'string')) {
        options = items.enum.map(value => ({ value, label: value }));
    } else {
        return fail(l10n.t('is an array whose items are not string choices ("enum" or "anyOf" of {const, title})'));
    }
    const step: MultiEnumStep = { ...base, kind: 'multiEnum', options };
    copyNumbers(step, property, ['minItems', 'maxItems']);
    const def = property.default;
    if (Array.isArray(def) && def.every(v => typeof v === 'string' && options.some(o => o.value === v))) {
        step.default = def as string[];
    }
    return step;
}

function stringStep(base: StepBase, property: Json, fail: (what: string) => never): StringStep {
    const step: StringStep = { ...base, kind: 'string' };
    copyNumbers(step, property, ['minLength', 'maxLength']);
    if (property.pattern !== undefined) {
        if (typeof property.pattern !== 'string' || !compilePattern(property.pattern)) {
            fail(l10n.t('has a "pattern" that is not a valid regular expression ({0})', JSON.stringify(property.pattern)));
        }
        step.pattern = property.pattern as string;
    }
    // Other formats (uuid, ipv4, ...) are annotations we do not check; a zod schema usually carries a pattern too.
    if (typeof property.format === 'string' && FORMATS.includes(property.format)) {
        step.format = property.format as StringFormat;
    }
    if (typeof property.default === 'string') {
        step.default = property.default;
    }
    return step;
}

function numberStep(base: StepBase, kind: 'number' | 'integer', property: Json): NumberStep {
    const step: NumberStep = { ...base, kind };
    let minimum = optionalNumber(property.minimum);
    let maximum = optionalNumber(property.maximum);
    let exclusiveMinimum = optionalNumber(property.exclusiveMinimum);
    let exclusiveMaximum = optionalNumber(property.exclusiveMaximum);
    // Draft-04 spells exclusivity as a boolean modifier of minimum/maximum.
    if (property.exclusiveMinimum === true && minimum !== undefined) {
        exclusiveMinimum = minimum;
        minimum = undefined;
    }
    if (property.exclusiveMaximum === true && maximum !== undefined) {
        exclusiveMaximum = maximum;
        maximum = undefined;
    }
    Object.assign(step, definedOnly({ minimum, maximum, exclusiveMinimum, exclusiveMaximum }));
    if (typeof property.default === 'number' && Number.isFinite(property.default)) {
        step.default = property.default;
    }
    return step;
}

function definedOnly<T extends object>(value: T): Partial<T> {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** "step i of n", with i counted from 1. */
export function stepLabel(i: number, n: number): string {
    return l10n.t({ message: 'step {0} of {1}', args: [i, n], comment: ['Shown after the title of a multi-step form'] });
}

/** The text an input box starts with: the schema default, or empty. */
export function defaultRaw(step: PromptStep): string {
    if (step.default === undefined) {
        return '';
    }
    return Array.isArray(step.default) ? step.default.join(', ') : String(step.default);
}
