import { z } from 'zod';
import { countSeconds, type Counting } from './countSeconds.js';
import { defineTool, textResult } from '../tools/types.js';

export const DEPLOY_STEPS = ['build', 'test', 'push'] as const;
export type DeployStep = (typeof DEPLOY_STEPS)[number];

/** Seconds with one decimal, as the step summaries show them. */
export function roundSeconds(ms: number): number {
    return Math.round(ms / 100) / 10;
}

const INPUT = z.object({
    app: z.string().min(1).max(200).describe('The application being deployed.'),
    step: z.enum(DEPLOY_STEPS).describe('Which step this is.'),
    seconds: z.number().min(0).max(3600).describe('How long the step works, in seconds.'),
    fail: z.boolean().default(false).describe('Fail at the end instead of completing (to demonstrate failure propagation).'),
});

const COUNTING: Counting<z.output<typeof INPUT>> = {
    progress: ({ app, step }, done, ticks) => `${step} ${app}: ${done}/${ticks} s`,
    cancelled: ({ app, step }, done, ticks) => `[deploy_step] cancelled ${step} for ${app} at ${done}/${ticks}`,
    result: ({ app, step, fail }, elapsedMs) => {
        const took = roundSeconds(elapsedMs);
        const name = step[0]!.toUpperCase() + step.slice(1);
        if (fail) {
            return textResult(`${name} of ${app} failed after ${took.toFixed(1)} s (simulated failure, fail="${step}")`, true);
        }
        return { content: [{ type: 'text', text: `${name} of ${app} completed in ${took.toFixed(1)} s` }], structuredContent: { step, status: 'completed', seconds: took } };
    },
};

/**
 * One simulated deploy step. Hidden: `deploy` starts it as a sub-task, a client never sees or
 * calls it, so its arguments are the parent's business (including the failure switch).
 */
export const deployStepTool = defineTool({
    name: 'deploy_step',
    title: 'Demo: Deploy Step (internal)',
    description:
        'Demonstration tool: one step (build, test or push) of the demo deploy, which only waits for `seconds`, reporting progress each second, and builds, tests or pushes nothing. ' +
        'Started by deploy as a sub-task; not offered to clients, and never for real requests.',
    inputSchema: INPUT,
    outputSchema: z.object({
        step: z.enum(DEPLOY_STEPS),
        status: z.literal('completed'),
        seconds: z.number(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    taskSupport: 'required',
    hidden: true,
    demo: true,
    keyArgument: 'step',
    run: (args, ctx) => countSeconds(ctx, args, COUNTING),
});
