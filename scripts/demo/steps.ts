import type { DemoContext } from './context.js';
import { connectStep, greetStep } from './steps/basics.js';
import { elicitationStep, samplingStep } from './steps/input.js';
import { cancelStep, createTaskStep, failingStep, pollStep } from './steps/tasks.js';

export interface Step {
    title: string;
    run(ctx: DemoContext): Promise<void>;
}

/** The walkthrough, in order. docs/WALKTHROUGH.md has one `### Step N: <title>` heading per entry (a test compares them). */
export const STEPS: readonly Step[] = [
    { title: 'Connect and open the notification stream', run: connectStep },
    { title: 'Call a tool synchronously (greet)', run: greetStep },
    { title: 'Start a task (slow_compute)', run: createTaskStep },
    { title: 'Poll the task, watch progress, fetch the result', run: pollStep },
    { title: 'A required-task tool, and a task that fails (failing_job)', run: failingStep },
    { title: 'Cancel a running task', run: cancelStep },
    { title: 'Answer an elicitation from inside a task (confirm_delete)', run: elicitationStep },
    { title: 'Answer a sampling request from inside a task (write_haiku)', run: samplingStep },
];

export const STEP_TITLES: readonly string[] = STEPS.map(step => step.title);
