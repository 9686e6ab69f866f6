import { z } from 'zod';
import { defineTool, textResult } from '../../server/src/tools/types.js';

/** A task-optional tool that sleeps on the task's clock for `ms`, then completes: tests drive it with a ManualClock. */
export const nap = defineTool({
    name: 'nap',
    title: 'Nap',
    description: 'Sleeps for `ms`, then completes.',
    inputSchema: z.object({ ms: z.number() }),
    taskSupport: 'optional',
    async run({ ms }, ctx) {
        await ctx.sleep(ms);
        return textResult(`slept ${ms}`);
    },
});
