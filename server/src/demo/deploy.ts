import { z } from 'zod';
import { DEPLOY_STEPS, deployStepTool, roundSeconds, type DeployStep } from './deployStep.js';
import { ChildTaskError, join } from '../tools/subtasks.js';
import { defineTool, textResult, type ChildTask, type ToolContext } from '../tools/types.js';

/** Simulated durations: build and test overlap, so a deploy takes about max(3, 2) + 1 = 4 s. */
export const DEPLOY_STEP_SECONDS: Record<DeployStep, number> = { build: 3, test: 2, push: 1 };
const TOTAL_SECONDS = DEPLOY_STEPS.reduce((sum, step) => sum + DEPLOY_STEP_SECONDS[step], 0);

type StepStatus = 'completed' | 'failed' | 'cancelled' | 'skipped';

interface StepReport {
    step: DeployStep;
    status: StepStatus;
    seconds: number;
}

interface RunningStep {
    step: DeployStep;
    child: ChildTask;
    /** How the step ended and how long it took as the parent saw it, set when the child ends. */
    status?: Exclude<StepStatus, 'skipped'>;
    seconds?: number;
}

export const deployTool = defineTool({
    name: 'deploy',
    title: 'Demo: Deploy',
    description:
        'Demonstration tool: pretends to deploy an application and deploys nothing (nothing is built, tested or pushed, nothing leaves this machine); its steps only wait. ' +
        'Must be run as a task; it starts three sub-tasks, build (about 3 s) and test (about 2 s) at once, then push (about 1 s), ' +
        'each listed as a sub-task of the deploy, and reports combined progress in seconds of work done. ' +
        'Use it only to demonstrate or test sub-tasks: fan-out and join, failure propagation, and cascade cancellation (cancelling the deploy cancels its steps); ' +
        'do not call it when the user asks to deploy or ship a real application. ' +
        'Returns a summary of each step and its duration, plus the same as data { app, steps: [{ step, status, seconds }] }; if a step fails or is cancelled, the others are stopped and the task fails, naming that step.',
    inputSchema: z.object({
        app: z.string().min(1).max(200).default('demo').describe('The application to deploy, e.g. "web-frontend".'),
        fail: z
            .enum(['', ...DEPLOY_STEPS])
            .default('')
            .describe('For demonstrations: the step that should fail, "build", "test" or "push" (e.g. "test"); empty for a deploy that succeeds.'),
    }),
    outputSchema: z.object({
        // VS Code hands the model only the structured content when there is some, so it repeats the text.
        summary: z.string().describe('The same one-paragraph summary as the text content.'),
        app: z.string().describe('The application deployed.'),
        steps: z
            .array(
                z.object({
                    step: z.enum(DEPLOY_STEPS).describe('build, test or push.'),
                    status: z.enum(['completed', 'failed', 'cancelled', 'skipped']).describe('How the step ended; skipped when an earlier step failed.'),
                    seconds: z.number().describe('How long the step ran, in seconds (one decimal).'),
                }),
            )
            .describe('Every step, in order.'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    taskSupport: 'required',
    keyArgument: 'app',
    demo: true,
    async run({ app, fail }, ctx) {
        const started = performance.now();
        const done: Record<DeployStep, number> = { build: 0, test: 0, push: 0 };
        const running: RunningStep[] = [];
        const start = async (step: DeployStep): Promise<ChildTask> => {
            const spawnedAt = performance.now();
            const onProgress = ({ progress }: { progress: number }) => {
                done[step] = progress;
                const worked = DEPLOY_STEPS.reduce((sum, s) => sum + done[s], 0);
                ctx.progress(worked, TOTAL_SECONDS, DEPLOY_STEPS.map(s => `${s} ${done[s]}/${DEPLOY_STEP_SECONDS[s]} s`).join(', '));
            };
            const child = await ctx.spawn(deployStepTool.name, { app, step, seconds: DEPLOY_STEP_SECONDS[step], fail: fail === step }, { onProgress });
            const entry: RunningStep = { step, child };
            running.push(entry);
            // Registered before any join, so the entry is filled in by the time a join settles.
            const ended = (status: Exclude<StepStatus, 'skipped'>) => {
                entry.status = status;
                entry.seconds = roundSeconds(performance.now() - spawnedAt);
            };
            void child.wait().then(
                () => ended('completed'),
                err => ended(err instanceof ChildTaskError ? err.status : 'cancelled'),
            );
            return child;
        };
        try {
            await join([await start('build'), await start('test')]);
            await (await start('push')).wait();
        } catch (err) {
            if (!(err instanceof ChildTaskError) || ctx.signal.aborted) {
                throw err;
            }
            return failed(app, err, running, started, ctx);
        }
        const steps = report(running);
        const [build, test, push] = steps;
        const text =
            `Deployed ${app} in ${roundSeconds(performance.now() - started).toFixed(1)} s: build completed in ${build!.seconds.toFixed(1)} s and test completed in ${test!.seconds.toFixed(1)} s (in parallel), ` +
            `then push completed in ${push!.seconds.toFixed(1)} s.`;
        return { content: [{ type: 'text', text }], structuredContent: { summary: text, app, steps } };
    },
});

/** One step went wrong: stop the others (their work is pointless now), then say which step and why. */
async function failed(app: string, err: ChildTaskError, running: RunningStep[], started: number, ctx: ToolContext) {
    const culprit = running.find(r => r.child.taskId === err.taskId)?.step ?? 'unknown';
    await Promise.all(running.map(r => r.child.cancel(`step ${culprit} ${err.status}`)));
    await Promise.allSettled(running.map(r => r.child.wait()));
    const steps = report(running);
    const summary = steps.map(s => (s.status === 'skipped' ? `${s.step} skipped` : `${s.step} ${s.status} after ${s.seconds.toFixed(1)} s`)).join('; ');
    ctx.log.info(`[deploy] ${app} stopped at ${culprit} after ${roundSeconds(performance.now() - started).toFixed(1)} s`);
    const text = `Deploy of ${app} failed at step ${culprit}: ${err.message}. Steps: ${summary}.`;
    return { ...textResult(text, true), structuredContent: { summary: text, app, steps } };
}

/** The steps in order, each with how it ended (a ChildTaskError says how; a missing step never started). */
function report(running: RunningStep[]): StepReport[] {
    return DEPLOY_STEPS.map(step => {
        const entry = running.find(r => r.step === step);
        return entry ? { step, status: entry.status ?? 'completed', seconds: entry.seconds ?? 0 } : { step, status: 'skipped', seconds: 0 };
    });
}
