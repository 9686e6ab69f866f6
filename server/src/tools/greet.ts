import { z } from 'zod';
import { defineTool, textResult } from './types.js';

export const greetTool = defineTool({
    name: 'greet',
    title: 'Greet someone',
    description: 'Returns a one-line greeting for the given name, immediately (no task). Use it to check that the MCP Tasks server is reachable. Returns text like "Hello, Ada!".',
    inputSchema: z.object({
        name: z.string().max(1000).describe('Who to greet, e.g. "Ada" or "World".'),
    }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    taskSupport: 'forbidden',
    keyArgument: 'name',
    async run({ name }) {
        return textResult(`Hello, ${name}!`);
    },
});
