// Tool inputSchemas as Run Tool receives them: zod shapes turned into JSON Schema by the SDK,
// listed over a real Client/Server pair.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { coerceStep, planFromSchema, validateContent, validateStep, type PromptStep } from '../../../../extension/input/schemaPlan.js';

async function listTools(register: (server: McpServer) => void): Promise<Tool[]> {
    const server = new McpServer({ name: 'schemas', version: '1.0.0' });
    register(server);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1.0.0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
        return (await client.listTools()).tools;
    } finally {
        await client.close();
        await server.close();
    }
}

const noop = () => ({ content: [] });

describe('tool inputSchemas from zod', () => {
    let tools: Map<string, Tool>;

    before(async () => {
        const list = await listTools(server => {
            server.registerTool(
                'everything',
                {
                    inputSchema: {
                        name: z.string().min(2).max(5).describe('Your name'),
                        email: z.string().email().optional(),
                        when: z.string().datetime(),
                        site: z.string().url().optional(),
                        count: z.number().int().positive().max(10).default(3),
                        ratio: z.number().gte(0).lt(1).optional(),
                        verbose: z.boolean().default(true),
                        color: z.enum(['red', 'green']),
                        tags: z.array(z.enum(['a', 'b', 'c'])).min(1).max(2).optional(),
                        note: z.string().nullable().optional(),
                    },
                },
                noop,
            );
            server.registerTool('nested', { inputSchema: { options: z.object({ depth: z.number() }) } }, noop);
            server.registerTool('list', { inputSchema: { files: z.array(z.string()) } }, noop);
            server.registerTool('union', { inputSchema: { id: z.union([z.string(), z.number()]) } }, noop);
            server.registerTool('bare', {}, noop);
        });
        tools = new Map(list.map(t => [t.name, t]));
    });

    function plan(name: string): PromptStep[] {
        const result = planFromSchema(tools.get(name)!.inputSchema);
        assert.ok(result.ok, result.ok ? '' : result.error);
        return result.steps;
    }

    function byKey(name: string): Map<string, PromptStep> {
        return new Map(plan(name).map(s => [s.key, s]));
    }

    it('plans every supported zod field, in declaration order', () => {
        assert.deepEqual(
            plan('everything').map(s => [s.key, s.kind, s.required]),
            [
                ['name', 'string', true],
                ['email', 'string', false],
                ['when', 'string', true],
                ['site', 'string', false],
                ['count', 'integer', false],
                ['ratio', 'number', false],
                ['verbose', 'boolean', false],
                ['color', 'enum', true],
                ['tags', 'multiEnum', false],
                ['note', 'string', false],
            ],
        );
    });

    it('keeps descriptions, defaults and bounds', () => {
        const steps = byKey('everything');
        assert.equal(steps.get('name')!.description, 'Your name');
        assert.equal(steps.get('count')!.default, 3);
        assert.equal(steps.get('verbose')!.default, true);
        assert.deepEqual(steps.get('tags'), {
            key: 'tags',
            title: 'tags',
            required: false,
            kind: 'multiEnum',
            options: ['a', 'b', 'c'].map(v => ({ value: v, label: v })),
            minItems: 1,
            maxItems: 2,
        });
    });

    it('validates with the constraints zod wrote (lengths, formats, patterns, exclusive bounds)', () => {
        const steps = byKey('everything');
        assert.equal(validateStep(steps.get('name')!, 'A'), 'Must be at least 2 characters');
        assert.equal(validateStep(steps.get('email')!, 'ada@example.com'), undefined);
        assert.equal(validateStep(steps.get('email')!, 'ada@'), 'Enter a valid email address');
        assert.equal(validateStep(steps.get('when')!, '2025-01-31T09:30:00Z'), undefined);
        assert.match(validateStep(steps.get('when')!, '2025-01-31T09:30:00+01:00') ?? '', /^Must match the pattern/, "zod's own pattern only takes Z");
        assert.equal(validateStep(steps.get('count')!, '0'), 'Must be > 0');
        assert.equal(validateStep(steps.get('count')!, '2.5'), 'Must be an integer');
        assert.equal(validateStep(steps.get('ratio')!, '1'), 'Must be < 1');
        assert.equal(coerceStep(steps.get('count')!, '10'), 10);
    });

    it('produces content that the final check accepts', () => {
        const content = { name: 'Ada', when: '2025-01-31T09:30:00Z', count: 4, verbose: false, color: 'green', tags: ['a', 'c'] };
        assert.equal(validateContent(plan('everything'), content), undefined);
    });

    it('gives a tool without arguments no steps', () => {
        assert.deepEqual(plan('bare'), []);
    });

    it('refuses nested objects, free arrays and unions with the property named', () => {
        const error = (name: string) => {
            const result = planFromSchema(tools.get(name)!.inputSchema);
            return result.ok ? '' : result.error;
        };
        assert.match(error('nested'), /Property "options" is a nested object/);
        assert.match(error('list'), /Property "files" is an array whose items are not string choices/);
        assert.match(error('union'), /Property "id" has several types/);
    });
});

describe('hand-written tool inputSchemas', () => {
    it('accepts additionalProperties: false, $schema and defaults at the top level', () => {
        const result = planFromSchema({
            $schema: 'http://json-schema.org/draft-07/schema#',
            type: 'object',
            properties: {
                seconds: { type: 'number', minimum: 0, default: 5, description: 'How long to wait' },
                label: { type: 'string', default: 'job' },
            },
            required: ['seconds'],
            additionalProperties: false,
        });
        assert.ok(result.ok);
        assert.deepEqual(result.steps, [
            { key: 'seconds', title: 'seconds', description: 'How long to wait', required: true, kind: 'number', minimum: 0, default: 5 },
            { key: 'label', title: 'label', required: false, kind: 'string', default: 'job' },
        ]);
    });

    it('allows additionalProperties on a property only where it is an object (which is refused anyway)', () => {
        const result = planFromSchema({ type: 'object', properties: { map: { type: 'object', additionalProperties: { type: 'string' } } } });
        assert.ok(!result.ok);
        assert.match(result.error, /"map" is a nested object/);
    });
});
