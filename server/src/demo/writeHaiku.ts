import type { CreateMessageResult } from '../mcpTypes.js';
import { z } from 'zod';
import { defineTool, textResult } from '../tools/types.js';

export const writeHaikuTool = defineTool({
    name: 'write_haiku',
    title: 'Demo: Write Haiku',
    description:
        "Demonstration tool: asks the editor's language model for a haiku about a topic and returns the model's reply, to show a task asking a language model. " +
        'Runs as a task that waits while the model answers. Use it only to demonstrate or test a task that asks a language model; ' +
        'do not call it for a real request for a poem (write the poem yourself). Returns "Haiku about", the topic, and the poem.',
    inputSchema: z.object({
        topic: z.string().min(1).max(500).default('nature').describe('What the haiku is about, e.g. "autumn rain".'),
    }),
    annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: true },
    taskSupport: 'required',
    keyArgument: 'topic',
    demo: true,
    async run({ topic }, ctx) {
        const reply = await ctx.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: `Write a haiku about ${topic}` } }],
            maxTokens: 50,
        });
        return textResult(`Haiku about ${topic}:\n${replyText(reply)}`);
    },
});

function replyText(reply: CreateMessageResult): string {
    const parts = Array.isArray(reply.content) ? reply.content : [reply.content];
    return parts
        .map(part => (part.type === 'text' ? part.text : ''))
        .join('')
        .trim();
}
