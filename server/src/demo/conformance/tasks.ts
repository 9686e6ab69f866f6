import { z } from 'zod';
import { RpcError } from '../../rpc/errors.js';
import { defineTool, textResult, type ToolDefinition } from '../../tools/types.js';

// The conformance suite's tasks fixtures (SEP-2663) beyond the demo tools it also uses.

export function taskFixtures(): ToolDefinition[] {
    return [
        defineTool({
            name: 'protocol_error_job',
            title: 'protocol_error_job',
            description: 'Fails with a JSON-RPC error, not a tool error, after a moment (conformance fixture).',
            inputSchema: z.object({}),
            taskSupport: 'required',
            async run(_args, ctx) {
                await ctx.sleep(200);
                throw new RpcError(-32603, 'protocol_error_job failed with an internal error, on purpose');
            },
        }),
        defineTool({
            name: 'multi_input',
            title: 'multi_input',
            description: 'Asks two questions at once and waits for both (conformance fixture).',
            inputSchema: z.object({}),
            taskSupport: 'required',
            async run(_args, ctx) {
                const ask = (message: string) =>
                    ctx.elicit({ mode: 'form', message, requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } });
                const [first, second] = await Promise.all([ask('First question?'), ask('Second question?')]);
                return textResult(`Answers: ${String(first.content?.answer)}, ${String(second.content?.answer)}`);
            },
        }),
        defineTool({
            name: 'test_tool_with_task',
            title: 'test_tool_with_task',
            description: "Asks the user's name in the call, then runs as a task that greets them (conformance fixture).",
            inputSchema: z.object({}),
            taskSupport: 'required',
            async gather(_args, ask) {
                const { user_name } = await ask({
                    user_name: { method: 'elicitation/create', params: { mode: 'form', message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } },
                });
                const name = (user_name as { content?: { name?: unknown } }).content?.name;
                return { user_name: typeof name === 'string' ? name : 'someone' };
            },
            async run(args, ctx) {
                await ctx.sleep(100);
                return textResult(`Hello, ${String((args as Record<string, unknown>).user_name ?? 'someone')}! (task done)`);
            },
        }),
    ];
}
