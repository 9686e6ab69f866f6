import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coerceStep, defaultRaw, planFromSchema, stepLabel, validateContent, validateStep, type PromptStep } from '../../../../extension/input/schemaPlan.js';

/** The steps of a schema that must plan, or a failed assertion with the plan error. */
function steps(schema: unknown): PromptStep[] {
    const plan = planFromSchema(schema);
    assert.ok(plan.ok, plan.ok ? '' : plan.error);
    return plan.steps;
}

function step(property: Record<string, unknown>, required = true): PromptStep {
    return steps({ type: 'object', properties: { field: property }, required: required ? ['field'] : [] })[0]!;
}

function planError(schema: unknown): string {
    const plan = planFromSchema(schema);
    assert.equal(plan.ok, false, 'expected the plan to fail');
    return plan.ok ? '' : plan.error;
}

function propertyError(property: Record<string, unknown>): string {
    return planError({ type: 'object', properties: { field: property } });
}

/** A string step of `format` accepts every one of `good` and refuses every one of `bad` with `message`. */
function checkFormat(format: string, good: string[], bad: string[], message: string): void {
    const s = step({ type: 'string', format });
    for (const value of good) {
        assert.equal(validateStep(s, value), undefined, value);
    }
    for (const value of bad) {
        assert.equal(validateStep(s, value), message, value);
    }
}

describe('planFromSchema', () => {
    it('makes one step per property, in property order, with title, description, required and default', () => {
        const result = steps({
            type: 'object',
            properties: {
                name: { type: 'string', title: 'Your name', description: 'As on your passport', default: 'Ada' },
                age: { type: 'integer', minimum: 0 },
                subscribe: { type: 'boolean', default: false },
            },
            required: ['name', 'age'],
        });
        assert.deepEqual(result, [
            { key: 'name', title: 'Your name', description: 'As on your passport', required: true, kind: 'string', default: 'Ada' },
            { key: 'age', title: 'age', required: true, kind: 'integer', minimum: 0 },
            { key: 'subscribe', title: 'subscribe', required: false, kind: 'boolean', default: false },
        ]);
    });

    it('accepts a schema without properties or required (a tool with no arguments)', () => {
        assert.deepEqual(steps({ type: 'object' }), []);
        assert.deepEqual(steps({ type: 'object', properties: {} }), []);
    });

    it('keeps string constraints and the four elicitation formats', () => {
        assert.deepEqual(step({ type: 'string', minLength: 3, maxLength: 10, pattern: '^[a-z]+$' }), {
            key: 'field',
            title: 'field',
            required: true,
            kind: 'string',
            minLength: 3,
            maxLength: 10,
            pattern: '^[a-z]+$',
        });
        for (const format of ['email', 'uri', 'date', 'date-time']) {
            assert.equal((step({ type: 'string', format }) as { format?: string }).format, format);
        }
    });

    it('ignores formats it does not check (the pattern still applies)', () => {
        const s = step({ type: 'string', format: 'uuid', pattern: '^[0-9a-f-]{36}$' });
        assert.equal((s as { format?: string }).format, undefined);
        assert.equal(validateStep(s, 'nope'), 'Must match the pattern ^[0-9a-f-]{36}$');
    });

    it('keeps number bounds, including draft-04 boolean exclusivity', () => {
        assert.deepEqual(step({ type: 'number', minimum: 1, maximum: 5, default: 2 }), {
            key: 'field',
            title: 'field',
            required: true,
            kind: 'number',
            minimum: 1,
            maximum: 5,
            default: 2,
        });
        assert.deepEqual(step({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }), {
            key: 'field',
            title: 'field',
            required: true,
            kind: 'number',
            exclusiveMinimum: 0,
            exclusiveMaximum: 1,
        });
        const draft4 = step({ type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: true });
        assert.deepEqual(draft4, { key: 'field', title: 'field', required: true, kind: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 9 });
    });

    it('plans untitled, legacy-titled and titled single-select enums', () => {
        assert.deepEqual((step({ type: 'string', enum: ['a', 'b'], default: 'b' }) as { options: unknown; default: unknown }).options, [
            { value: 'a', label: 'a' },
            { value: 'b', label: 'b' },
        ]);
        assert.deepEqual((step({ type: 'string', enum: ['a', 'b'], enumNames: ['Apple', 'Banana'] }) as { options: unknown }).options, [
            { value: 'a', label: 'Apple' },
            { value: 'b', label: 'Banana' },
        ]);
        const titled = step({ type: 'string', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }], default: 'g' });
        assert.equal(titled.kind, 'enum');
        assert.deepEqual((titled as { options: unknown }).options, [
            { value: 'r', label: 'Red' },
            { value: 'g', label: 'Green' },
        ]);
        assert.equal(titled.default, 'g');
    });

    it('drops a default that is not one of the choices or not of the field type', () => {
        assert.equal(step({ type: 'string', enum: ['a'], default: 'z' }).default, undefined);
        assert.equal(step({ type: 'integer', default: 'three' }).default, undefined);
        assert.equal(step({ type: 'boolean', default: 'yes' }).default, undefined);
        assert.equal(step({ type: 'array', items: { enum: ['a'] }, default: ['a', 'z'] }).default, undefined);
    });

    it('treats a string const as a one-choice enum', () => {
        const s = step({ type: 'string', const: 'only' });
        assert.equal(s.kind, 'enum');
        assert.deepEqual((s as { options: unknown }).options, [{ value: 'only', label: 'only' }]);
    });

    it('plans untitled and titled multi-select enums with their item bounds and defaults', () => {
        assert.deepEqual(step({ type: 'array', items: { type: 'string', enum: ['x', 'y', 'z'] }, minItems: 1, maxItems: 2, default: ['y'] }), {
            key: 'field',
            title: 'field',
            required: true,
            kind: 'multiEnum',
            options: [
                { value: 'x', label: 'x' },
                { value: 'y', label: 'y' },
                { value: 'z', label: 'z' },
            ],
            minItems: 1,
            maxItems: 2,
            default: ['y'],
        });
        const titled = step({ type: 'array', items: { anyOf: [{ const: 'x', title: 'Ex' }, { const: 'y', title: 'Why' }] } }, false);
        assert.equal(titled.kind, 'multiEnum');
        assert.deepEqual((titled as { options: unknown }).options, [
            { value: 'x', label: 'Ex' },
            { value: 'y', label: 'Why' },
        ]);
    });

    it('treats a nullable type (zod .nullable()) as the non-null type', () => {
        assert.equal(step({ type: ['string', 'null'] }).kind, 'string');
        assert.equal(step({ type: ['null', 'integer'] }).kind, 'integer');
    });
});

describe('planFromSchema: unsupported constructs name the property and the construct', () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
        ['a nested object', { type: 'object', properties: { a: { type: 'string' } } }, /"field" is a nested object/],
        ['an object without properties', { type: 'object' }, /"field" is a nested object/],
        ['$ref', { $ref: '#/$defs/thing' }, /"field" uses "\$ref"/],
        ['allOf', { allOf: [{ type: 'string' }] }, /"field" uses "allOf"/],
        ['anyOf of non-consts', { anyOf: [{ type: 'string' }, { type: 'number' }] }, /"field" uses "anyOf"/],
        ['oneOf of non-consts', { type: 'string', oneOf: [{ type: 'string' }] }, /"field" uses "oneOf" with entries other than \{const, title\}/],
        ['an array of strings', { type: 'array', items: { type: 'string' } }, /"field" is an array whose items are not string choices/],
        ['an array of objects', { type: 'array', items: { type: 'object', properties: {} } }, /"field" is an array whose items are not string choices/],
        ['an array without items', { type: 'array' }, /"field" is an array without an "items" schema/],
        ['an unknown type', { type: 'file' }, /"field" has type "file"/],
        ['the null type', { type: 'null' }, /"field" has type "null"/],
        ['no type', { description: 'anything' }, /"field" has no "type"/],
        ['several types', { type: ['string', 'number'] }, /"field" has several types/],
        ['a numeric enum', { type: 'number', enum: [1, 2] }, /"field" has an "enum" that is not a non-empty list of strings/],
        ['an empty enum', { type: 'string', enum: [] }, /"field" has an "enum" that is not a non-empty list of strings/],
        ['an invalid pattern', { type: 'string', pattern: '([a-z' }, /"field" has a "pattern" that is not a valid regular expression/],
        ['multipleOf', { type: 'number', multipleOf: 5 }, /"field" uses "multipleOf"/],
        ['a non-object property schema', { not: { type: 'string' } }, /"field" uses "not"/],
    ];
    for (const [name, property, expected] of cases) {
        it(`rejects ${name}`, () => {
            const error = propertyError(property);
            assert.match(error, expected);
            assert.match(error, /cannot be shown as a form field/);
        });
    }

    it('rejects a property schema that is not an object', () => {
        assert.match(planError({ type: 'object', properties: { field: true } }), /"field" is not a schema object/);
    });

    it('rejects schemas that are not flat objects', () => {
        assert.match(planError(null), /not a JSON object/);
        assert.match(planError({ type: 'string' }), /top-level type is "string"/);
        assert.match(planError({ type: 'object', anyOf: [] }), /"anyOf" at the top level/);
        assert.match(planError({ type: 'object', properties: [] }), /"properties" is not an object/);
        assert.match(planError({ type: 'object', properties: {}, required: 'a' }), /"required" is not a list/);
        assert.match(planError({ type: 'object', properties: { a: { type: 'string' } }, required: ['b'] }), /"b" is required but not defined/);
    });
});

describe('validateStep and coerceStep', () => {
    it('checks string length in characters (code points)', () => {
        const s = step({ type: 'string', minLength: 3, maxLength: 4 });
        assert.equal(validateStep(s, 'ab'), 'Must be at least 3 characters');
        assert.equal(validateStep(s, 'abcde'), 'Must be at most 4 characters');
        assert.equal(validateStep(s, 'abc'), undefined);
        assert.equal(validateStep(s, '😀😀😀'), undefined, 'three emoji are three characters');
        assert.equal(validateStep(step({ type: 'string', minLength: 1, maxLength: 1 }), 'ab'), 'Must be at most 1 character');
    });

    it('keeps the spaces of free text', () => {
        assert.equal(coerceStep(step({ type: 'string' }), '  padded  '), '  padded  ');
    });

    it('checks patterns unanchored, as JSON Schema does', () => {
        const s = step({ type: 'string', pattern: '\\d{3}' });
        assert.equal(validateStep(s, 'ab123cd'), undefined);
        assert.equal(validateStep(s, 'ab12'), 'Must match the pattern \\d{3}');
    });

    it('checks email addresses', () => {
        checkFormat('email', ['a@b.co', 'first.last+tag@sub.example.org', ' ada@example.com '], ['plain', 'a@b', '@b.co', 'a b@c.de', 'a@b..c', 'a@@b.co'], 'Enter a valid email address');
        assert.equal(coerceStep(step({ type: 'string', format: 'email' }), ' ada@example.com '), 'ada@example.com');
    });

    it('checks absolute URIs', () => {
        checkFormat('uri', ['https://example.com', 'http://localhost:8080/a?b=c#d', 'mailto:a@b.co', 'urn:isbn:0451450523', 'file:///tmp/x'], ['example.com', '/relative/path', 'http://exa mple.com', '://nope', 'https://'], 'Enter a valid absolute URI, such as https://example.com');
    });

    it('checks calendar dates as YYYY-MM-DD', () => {
        checkFormat('date', ['2024-02-29', '2000-02-29', '2023-12-31', '0004-02-29'], ['2023-02-29', '1900-02-29', '2023-04-31', '2023-13-01', '2023-00-10', '2023-1-5', '05/01/2023', '2023-01-01T00:00:00Z'], 'Enter a valid date as YYYY-MM-DD');
    });

    it('checks RFC 3339 date-times', () => {
        checkFormat('date-time', ['2025-01-31T09:30:00Z', '2025-01-31t09:30:00.123z', '2025-01-31T23:59:60+01:00', '2024-02-29T00:00:00-05:30'], ['2025-01-31', '2025-01-31T09:30Z', '2025-01-31T09:30:00', '2025-01-31 09:30:00Z', '2025-02-30T00:00:00Z', '2025-01-31T24:00:00Z', '2025-01-31T09:60:00Z', '2025-01-31T09:30:00+24:00'], 'Enter a valid date and time, such as 2025-01-31T09:30:00Z');
    });

    it('parses and bounds numbers', () => {
        const s = step({ type: 'number', minimum: -1, maximum: 10 });
        assert.equal(coerceStep(s, '4.5'), 4.5);
        assert.equal(coerceStep(s, ' -1 '), -1);
        assert.equal(coerceStep(s, '1e1'), 10);
        assert.equal(validateStep(s, '11'), 'Must be ≤ 10');
        assert.equal(validateStep(s, '-2'), 'Must be ≥ -1');
        for (const bad of ['abc', '1,5', '0x10', '1e999', 'NaN', 'Infinity', '4.5.6', '--1']) {
            assert.equal(validateStep(s, bad), 'Must be a number', bad);
        }
        const exclusive = step({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 });
        assert.equal(validateStep(exclusive, '0'), 'Must be > 0');
        assert.equal(validateStep(exclusive, '1'), 'Must be < 1');
        assert.equal(validateStep(exclusive, '0.5'), undefined);
    });

    it('parses integers and rejects fractions', () => {
        const s = step({ type: 'integer', maximum: 100 });
        assert.equal(coerceStep(s, '42'), 42);
        assert.equal(typeof coerceStep(s, '42'), 'number');
        assert.equal(coerceStep(s, '7.0'), 7);
        assert.equal(validateStep(s, '4.5'), 'Must be an integer');
        assert.equal(validateStep(s, 'four'), 'Must be an integer');
        assert.equal(validateStep(s, '101'), 'Must be ≤ 100');
        assert.throws(() => coerceStep(s, '4.5'), /field: Must be an integer/);
    });

    it('parses booleans', () => {
        const s = step({ type: 'boolean' });
        assert.equal(coerceStep(s, 'true'), true);
        assert.equal(coerceStep(s, 'false'), false);
        assert.equal(coerceStep(s, 'Yes'), true);
        assert.equal(coerceStep(s, 'NO'), false);
        assert.equal(validateStep(s, 'maybe'), 'Enter yes or no');
    });

    it('checks single-select values', () => {
        const s = step({ type: 'string', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }] });
        assert.equal(coerceStep(s, 'g'), 'g');
        assert.equal(validateStep(s, 'Green'), 'Must be one of: Red, Green');
    });

    it('checks multi-select arrays and their item bounds', () => {
        const s = step({ type: 'array', items: { enum: ['a', 'b', 'c'] }, minItems: 1, maxItems: 2 });
        assert.deepEqual(coerceStep(s, ['a', 'c']), ['a', 'c']);
        assert.deepEqual(coerceStep(s, 'a, b'), ['a', 'b'], 'a comma-separated string also works');
        assert.equal(validateStep(s, []), 'Pick at least 1');
        assert.equal(validateStep(s, ['a', 'b', 'c']), 'Pick at most 2');
        assert.equal(validateStep(s, ['a', 'z']), '"z" is not one of: a, b, c');
        assert.equal(validateStep(s, ['a', 'a']), 'Pick each choice at most once');
        assert.equal(validateStep(step({ type: 'string' }), ['a']), 'Enter a single value');
    });

    it('says Required for an empty required field and leaves an empty optional field out', () => {
        for (const property of [{ type: 'string' }, { type: 'integer' }, { type: 'boolean' }, { type: 'string', format: 'email' }, { type: 'string', enum: ['a'] }]) {
            assert.equal(validateStep(step(property, true), ''), 'Required', JSON.stringify(property));
            assert.equal(validateStep(step(property, false), '  '), undefined, JSON.stringify(property));
            assert.equal(coerceStep(step(property, false), ''), undefined, JSON.stringify(property));
        }
        const optionalMulti = step({ type: 'array', items: { enum: ['a'] }, minItems: 1 }, false);
        assert.equal(coerceStep(optionalMulti, []), undefined);
        const requiredMulti = step({ type: 'array', items: { enum: ['a'] } }, true);
        assert.deepEqual(coerceStep(requiredMulti, []), []);
    });
});

describe('validateContent', () => {
    const plan = steps({
        type: 'object',
        properties: {
            name: { type: 'string', title: 'Name', minLength: 2 },
            count: { type: 'integer', maximum: 3 },
            ok: { type: 'boolean' },
            tags: { type: 'array', items: { enum: ['a', 'b'] } },
        },
        required: ['name'],
    });

    it('accepts well-typed content with optional fields left out', () => {
        assert.equal(validateContent(plan, { name: 'Ada' }), undefined);
        assert.equal(validateContent(plan, { name: 'Ada', count: 3, ok: false, tags: ['b'] }), undefined);
    });

    it('names the first field that is missing, mistyped or out of range', () => {
        assert.equal(validateContent(plan, {}), 'Name: Required');
        assert.equal(validateContent(plan, { name: 'A' }), 'Name: Must be at least 2 characters');
        assert.equal(validateContent(plan, { name: 'Ada', count: '3' }), 'count: Must be an integer');
        assert.equal(validateContent(plan, { name: 'Ada', count: 2.5 }), 'count: Must be an integer');
        assert.equal(validateContent(plan, { name: 'Ada', count: 4 }), 'count: Must be ≤ 3');
        assert.equal(validateContent(plan, { name: 'Ada', ok: 'true' }), 'ok: Must be yes or no');
        assert.equal(validateContent(plan, { name: 'Ada', tags: 'a' }), 'tags: Must be a list of choices');
        assert.equal(validateContent(plan, { name: 'Ada', extra: 1 }), 'Unexpected property "extra"');
    });
});

describe('helpers', () => {
    it('labels steps from 1', () => {
        assert.equal(stepLabel(1, 3), 'step 1 of 3');
        assert.equal(stepLabel(3, 3), 'step 3 of 3');
    });

    it('turns defaults into input box text', () => {
        assert.equal(defaultRaw(step({ type: 'integer', default: 5 })), '5');
        assert.equal(defaultRaw(step({ type: 'boolean', default: false })), 'false');
        assert.equal(defaultRaw(step({ type: 'string' })), '');
        assert.equal(defaultRaw(step({ type: 'array', items: { enum: ['a', 'b'] }, default: ['a', 'b'] })), 'a, b');
    });
});
