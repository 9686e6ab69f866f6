import { z } from 'zod';
import { defineTool, textResult } from '../tools/types.js';

export const FAILING_JOB_MESSAGE = 'Job failed: the simulated worker crashed after 1 second (this tool always fails, to demonstrate task failure)';

export const failingJobTool = defineTool({
    name: 'failing_job',
    title: 'Demo: Failing Job',
    description:
        'Demonstration tool: a background task that does no work and always fails after about one second. Must be run as a task. ' +
        'Use it only to demonstrate or test how task failures are reported; do not call it to run a real job. Returns an error result whose text explains the failure.',
    inputSchema: z.object({}),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    taskSupport: 'required',
    demo: true,
    async run(_args, ctx) {
        await ctx.sleep(1000);
        return textResult(FAILING_JOB_MESSAGE, true);
    },
});
