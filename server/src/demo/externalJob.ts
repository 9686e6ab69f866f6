import { z } from 'zod';
import { SimulatedJobSystem } from './simulatedJobs.js';
import { defineTool, type ExternalTaskHandler } from '../tools/types.js';

const inputSchema = z.object({
    job_id: z.string().min(1).max(200).default('job-001').describe('The external job to run and track, e.g. "job-042".'),
});

/** The tool over any job system that implements ExternalTaskHandler; the default is the simulated one. */
export function createExternalJobTool(jobs: ExternalTaskHandler<z.output<typeof inputSchema>> = new SimulatedJobSystem()) {
    return defineTool({
        name: 'external_job',
        title: 'Demo: External Job',
        description:
            'Demonstration tool: submits a job to a simulated external job system, which runs nothing and reports the job completed after about one second, and tracks it as a task whose status and result come from that system. ' +
            'Must be run as a task. Use it only to demonstrate or test tasks backed by an external job queue; do not call it to run or check a real job. Returns "External job", its job id, and "completed".',
        inputSchema,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
        taskSupport: 'required',
        keyArgument: 'job_id',
        demo: true,
        external: jobs,
    });
}
