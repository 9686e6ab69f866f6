import { z } from 'zod';
import { SimulatedJobSystem } from './simulatedJobs.js';
import { defineTool, type ExternalTaskHandler } from './types.js';

const inputSchema = z.object({
    job_id: z.string().min(1).max(200).default('job-001').describe('The external job to run and track, e.g. "job-042".'),
});

/** The tool over any job system that implements ExternalTaskHandler; the default is the simulated one. */
export function createExternalJobTool(jobs: ExternalTaskHandler<z.output<typeof inputSchema>> = new SimulatedJobSystem()) {
    return defineTool({
        name: 'external_job',
        title: 'Run an external job',
        description:
            'Submits a job to an external job system and tracks it as a task; status and result come from that system (about one second for the built-in simulated one). ' +
            'Must be run as a task. Use it when the user asks to run or check a queued job. Returns "External job <job_id> completed".',
        inputSchema,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
        taskSupport: 'required',
        keyArgument: 'job_id',
        external: jobs,
    });
}
