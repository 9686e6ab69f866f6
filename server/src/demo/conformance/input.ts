import { z } from 'zod';
import { RpcError } from '../../rpc/errors.js';
import { defineTool, textResult, type ToolContext, type ToolDefinition } from '../../tools/types.js';

// The conformance suite's multi round-trip (SEP-2322) fixtures: each asks through ctx.input, which
// only plain calls of 2026-07-28 clients have.

const noArgs = z.object({});

function nameForm(message: string, field: string): { method: string; params: Record<string, unknown> } {
    return { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] } } };
}

function sampling(text: string, maxTokens: number): { method: string; params: Record<string, unknown> } {
    return { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens } };
}

const ROOTS = { method: 'roots/list', params: {} };

function inputOf(ctx: ToolContext): NonNullable<ToolContext['input']> {
    if (!ctx.input) {
        throw new Error('This fixture needs a 2026-07-28 plain call (multi round-trip input)');
    }
    return ctx.input;
}

function field(answer: unknown, name: string): string {
    const content = (answer as { content?: Record<string, unknown> } | undefined)?.content;
    const value = content?.[name];
    return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

function sampledText(answer: unknown): string {
    const content = (answer as { content?: { text?: unknown } } | undefined)?.content;
    return typeof content?.text === 'string' ? content.text : JSON.stringify(content ?? null);
}

function roots(answer: unknown): string {
    const list = (answer as { roots?: { uri?: unknown }[] } | undefined)?.roots;
    if (!Array.isArray(list)) {
        throw new RpcError(-32602, 'Invalid inputResponses: roots/list answer needs a roots array');
    }
    return list.map(root => String(root?.uri)).join(', ');
}

function fixture(name: string, description: string, run: (ctx: ToolContext) => Promise<string>): ToolDefinition {
    return defineTool({ name, title: name, description: `${description} (conformance fixture)`, inputSchema: noArgs, taskSupport: 'forbidden', run: async (_args, ctx) => textResult(await run(ctx)) });
}

export function inputFixtures(): ToolDefinition[] {
    return [
        fixture('test_input_required_result_elicitation', 'Asks the user their name', async ctx => {
            const { user_name } = await inputOf(ctx)({ user_name: nameForm('What is your name?', 'name') });
            return `Hello, ${field(user_name, 'name')}!`;
        }),
        fixture('test_input_required_result_sampling', 'Asks the client model a question', async ctx => {
            const { capital_question } = await inputOf(ctx)({ capital_question: sampling('What is the capital of France?', 100) });
            return `The model answered: ${sampledText(capital_question)}`;
        }),
        fixture('test_input_required_result_list_roots', "Asks for the client's roots", async ctx => {
            const { client_roots } = await inputOf(ctx)({ client_roots: ROOTS });
            return `Roots: ${roots(client_roots)}`;
        }),
        fixture('test_input_required_result_request_state', 'Asks for a confirmation, with requestState', async ctx => {
            const { confirm } = await inputOf(ctx)({
                confirm: { method: 'elicitation/create', params: { mode: 'form', message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } },
            });
            return `state-ok: confirmed ${field(confirm, 'ok')}`;
        }),
        fixture('test_input_required_result_multiple_inputs', 'Asks three things at once', async ctx => {
            const answers = await inputOf(ctx)({ user_name: nameForm('What is your name?', 'name'), greeting: sampling('Generate a greeting', 50), client_roots: ROOTS });
            return `${sampledText(answers.greeting)}, ${field(answers.user_name, 'name')} (roots: ${roots(answers.client_roots)})`;
        }),
        fixture('test_input_required_result_multi_round', 'Asks two questions, one per round', async ctx => {
            const ask = inputOf(ctx);
            const { step1 } = await ask({ step1: nameForm('Step 1: What is your name?', 'name') });
            const { step2 } = await ask({ step2: nameForm('Step 2: What is your favorite color?', 'color') });
            return `${field(step1, 'name')} likes ${field(step2, 'color')}`;
        }),
        fixture('test_input_required_result_tampered_state', 'Asks one question; its requestState is signed', async ctx => {
            const { confirm } = await inputOf(ctx)({ confirm: nameForm('Please confirm your name', 'name') });
            return `Confirmed ${field(confirm, 'name')}`;
        }),
        fixture('test_input_required_result_capabilities', 'Asks only through the capabilities the request declared', async ctx => {
            const caps = ctx.clientCapabilities ?? {};
            const requests: Record<string, { method: string; params: Record<string, unknown> }> = {};
            if (caps.elicitation !== undefined) {
                requests.user_name = nameForm('What is your name?', 'name');
            }
            if (caps.sampling !== undefined) {
                requests.greeting = sampling('Generate a greeting', 50);
            }
            if (Object.keys(requests).length === 0) {
                return 'Nothing to ask: the client declared neither elicitation nor sampling';
            }
            const answers = await inputOf(ctx)(requests);
            return `Answered: ${Object.keys(answers).join(', ')}`;
        }),
        fixture('test_streaming_elicitation', 'Asks the user through an input request, never a request on the stream', async ctx => {
            const { answer } = await inputOf(ctx)({ answer: nameForm('What is your name?', 'name') });
            return `Hello, ${field(answer, 'name')}!`;
        }),
        fixture('test_missing_capability', 'Needs sampling: -32021 when the request does not declare it', async ctx => {
            const { reply } = await inputOf(ctx)({ reply: sampling('Say hello', 20) });
            return sampledText(reply);
        }),
    ];
}
