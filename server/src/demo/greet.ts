import { z } from 'zod';
import { defineTool, textResult } from '../tools/types.js';

export const greetTool = defineTool({
    name: 'greet',
    title: 'Demo: Greet',
    description:
        'Demonstration tool: returns a one-line greeting for the given name, immediately (no task), and does nothing else (no message is sent to anyone). ' +
        'Use it only to check that the MCP Tasks server is reachable; do not use it for real requests such as greeting or messaging a person. Returns text like "Hello, Ada!".',
    inputSchema: z.object({
        name: z.string().max(1000).describe('Who to greet, e.g. "Ada" or "World".'),
    }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    taskSupport: 'forbidden',
    keyArgument: 'name',
    demo: true,
    async run({ name }) {
        return textResult(`Hello, ${name}!`);
    },
});
