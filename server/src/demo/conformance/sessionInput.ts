import type { ElicitRequestFormParams, ElicitResult } from '../../mcpTypes.js';
import { z } from 'zod';
import { defineTool, textResult, type ToolDefinition } from '../../tools/types.js';

// The conformance suite's 2025-11-25 input fixtures: plain calls (no task) that ask the client
// directly, with elicitation/create or sampling/createMessage, on the call's own response stream.

type Schema = ElicitRequestFormParams['requestedSchema'];

/** SEP-1034: a default for every primitive type. */
const DEFAULTS_SCHEMA: Schema = {
    type: 'object',
    properties: {
        name: { type: 'string', default: 'John Doe' },
        age: { type: 'integer', default: 30 },
        score: { type: 'number', default: 95.5 },
        status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', default: true },
    },
};

/** SEP-1330: the five enum shapes, single and multiple choice, titled and untitled (and the legacy enumNames). */
const ENUMS_SCHEMA = {
    type: 'object',
    properties: {
        untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
        titledSingle: {
            type: 'string',
            oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
            ],
        },
        legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
        untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
        titledMulti: {
            type: 'array',
            items: {
                anyOf: [
                    { const: 'value1', title: 'First Choice' },
                    { const: 'value2', title: 'Second Choice' },
                    { const: 'value3', title: 'Third Choice' },
                ],
            },
        },
    },
} as Schema;

function answered(answer: ElicitResult): string {
    return `action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
}

function formFixture(name: string, description: string, schema: Schema): ToolDefinition {
    return defineTool({
        name,
        title: name,
        description: `${description} (conformance fixture).`,
        inputSchema: z.object({}),
        taskSupport: 'forbidden',
        run: async (_args, ctx) => textResult(`Elicitation completed: ${answered(await ctx.elicit({ mode: 'form', message: description, requestedSchema: schema }))}`),
    });
}

export function sessionInputFixtures(): ToolDefinition[] {
    return [
        defineTool({
            name: 'test_sampling',
            title: 'test_sampling',
            description: "Asks the client's model to answer the prompt (sampling/createMessage) and returns its reply (conformance fixture).",
            inputSchema: z.object({ prompt: z.string().describe('What to ask the model.') }),
            taskSupport: 'forbidden',
            async run({ prompt }, ctx) {
                const reply = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
                const content = Array.isArray(reply.content) ? reply.content[0] : reply.content;
                return textResult(`LLM response: ${content?.type === 'text' ? content.text : JSON.stringify(content ?? null)}`);
            },
        }),
        defineTool({
            name: 'test_elicitation',
            title: 'test_elicitation',
            description: 'Asks the user for a username and an email (elicitation/create) and returns the answer (conformance fixture).',
            inputSchema: z.object({ message: z.string().describe('The message shown to the user.') }),
            taskSupport: 'forbidden',
            async run({ message }, ctx) {
                const answer = await ctx.elicit({
                    mode: 'form',
                    message,
                    requestedSchema: {
                        type: 'object',
                        properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
                        required: ['username', 'email'],
                    },
                });
                return textResult(`User response: ${answered(answer)}`);
            },
        }),
        formFixture('test_elicitation_sep1034_defaults', 'Asks for five values, each with a default (SEP-1034)', DEFAULTS_SCHEMA),
        formFixture('test_elicitation_sep1330_enums', 'Asks five enum questions, one of each kind (SEP-1330)', ENUMS_SCHEMA),
    ];
}
