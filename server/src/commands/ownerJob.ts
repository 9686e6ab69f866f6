import { Methods, type OwnerJobStatus } from '../contract.js';
import { errorMessage } from '../util/log.js';
import type { ClientHub, ClientLink } from '../tasks/hub.js';
import type { CallToolResult, ExternalStatus, ExternalTaskHandler } from '../tools/types.js';

/** How long the owner may take to start a job or answer a question about it. */
const ASK_MS = 60_000;
const STATUSES = new Set(['working', 'completed', 'failed', 'cancelled']);

/**
 * The external-job backend of an owner job (a VS Code task the editor runs): each call is a
 * request to the owner connection that declared it runs jobs of `kind`. The job's end is pushed
 * by a status request the owner answers only once the job has ended (`wait: true`), so no
 * notification method is needed. An owner that is gone fails the job: nothing else can end it.
 */
export function ownerJobHandler(hub: () => ClientHub, kind: string, key: string): ExternalTaskHandler {
    const jobs = new Map<string, { link: ClientLink; last?: OwnerJobStatus }>();
    const jobOf = (ref: string) => {
        const job = jobs.get(ref);
        if (!job) {
            throw new Error(`Unknown ${kind} job ${ref} (this server did not start it)`);
        }
        return job;
    };
    const ask = async (ref: string, wait: boolean, signal: AbortSignal): Promise<OwnerJobStatus> => {
        const job = jobOf(ref);
        if (job.last && job.last.status !== 'working') {
            return job.last;
        }
        if (job.link.isClosed) {
            return (job.last = { status: 'failed', statusMessage: `The editor that ran ${kind} "${key}" disconnected; its outcome is unknown` });
        }
        job.last = statusOf(await job.link.request(Methods.ownerJobStatus, { ref, ...(wait ? { wait: true } : {}) }, { signal }));
        return job.last;
    };
    return {
        async start(args, taskId) {
            const link = hub().pickJobOwner(kind);
            if (!link) {
                throw new Error(`No editor that runs ${kind} jobs is connected (the MCP Tasks extension runs VS Code tasks), so "${key}" cannot start`);
            }
            const reply = await link.request(Methods.ownerJobStart, { kind, key, args, taskId }, { relatedTaskId: taskId, signal: AbortSignal.timeout(ASK_MS) });
            if (typeof reply.ref !== 'string' || !reply.ref) {
                throw new Error(`The editor answered ${Methods.ownerJobStart} without a job reference`);
            }
            jobs.set(reply.ref, { link });
            return reply.ref;
        },
        async getStatus(ref): Promise<ExternalStatus> {
            const { status, statusMessage } = await ask(ref, false, AbortSignal.timeout(ASK_MS));
            return { status, statusMessage };
        },
        async getResult(ref): Promise<CallToolResult> {
            const last = await ask(ref, false, AbortSignal.timeout(ASK_MS));
            jobs.delete(ref);
            return (last.result as CallToolResult | undefined) ?? { content: [{ type: 'text', text: last.statusMessage ?? `${kind} "${key}" ${last.status}` }], isError: last.status !== 'completed' };
        },
        async cancel(ref) {
            const job = jobs.get(ref);
            if (job && !job.link.isClosed) {
                await job.link.request(Methods.ownerJobCancel, { ref }, { signal: AbortSignal.timeout(ASK_MS) });
            }
            jobs.delete(ref);
        },
        watch(ref, onChange) {
            const stop = new AbortController();
            const follow = (): void => {
                ask(ref, true, stop.signal).then(
                    status => (status.status === 'working' ? follow() : onChange(status)),
                    err => {
                        if (!stop.signal.aborted) {
                            onChange({ status: 'failed', statusMessage: `Lost track of ${kind} "${key}": ${errorMessage(err)}` });
                        }
                    },
                );
            };
            follow();
            return () => stop.abort(new Error('No longer followed'));
        },
    };
}

function statusOf(reply: Record<string, unknown>): OwnerJobStatus {
    if (typeof reply.status !== 'string' || !STATUSES.has(reply.status)) {
        throw new Error(`The editor answered ${Methods.ownerJobStatus} without a valid status`);
    }
    return reply as unknown as OwnerJobStatus;
}
