import { z } from 'zod';
import { countSeconds, type Counting } from './countSeconds.js';
import { defineTool } from '../tools/types.js';

const MAX_SECONDS = 86_400;

const INPUT = z.object({
    seconds: z.number().min(0).max(MAX_SECONDS).default(3).describe('How long the computation takes, in seconds (0 allowed), e.g. 5.'),
    label: z.string().max(200).default('default').describe('A name for this computation, shown in progress and results, e.g. "quarterly report".'),
});

const COUNTING: Counting<z.output<typeof INPUT>> = {
    progress: ({ label }, done, ticks) => `${label}: ${done}/${ticks} s`,
    cancelled: ({ label }, done, ticks) => `[slow_compute] cancelled "${label}" at ${done}/${ticks}`,
    result: ({ seconds, label }) => {
        const summary = `Computation "${label}" completed after ${seconds} seconds. Result: 42.`;
        return { content: [{ type: 'text', text: summary }], structuredContent: { summary, label, seconds, result: 42 } };
    },
};

export const slowComputeTool = defineTool({
    name: 'slow_compute',
    title: 'Demo: Slow Compute',
    description:
        'Demonstration tool: waits the given number of seconds, reporting progress once per second, then returns the fixed value 42; it computes nothing. ' +
        'Runs as a background task when the client supports tasks (it can be watched and cancelled), otherwise waits inline. ' +
        'Use it only to demonstrate or test long-running work and tasks; do not call it for a real computation or calculation. Returns a sentence naming the label and the seconds waited, ending "Result: 42.", and the value as data.',
    inputSchema: INPUT,
    outputSchema: z.object({
        // VS Code hands the model only the structured content when there is some, so it repeats the text.
        summary: z.string().describe('The same sentence as the text content.'),
        label: z.string().describe('The label given in the arguments.'),
        seconds: z.number().describe('How many seconds the computation took.'),
        result: z.number().describe('The computed value.'),
    }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    taskSupport: 'optional',
    keyArgument: 'label',
    demo: true,
    run: (args, ctx) => countSeconds(ctx, args, COUNTING),
});
