import { RELATED_TASK_META_KEY } from '../contract.js';
import type { ToolContext } from '../tools/types.js';

/**
 * The calls running on one downstream, so a question it sends (elicitation, sampling) reaches the
 * user of the call that asks. A downstream task's question names its task (related-task `_meta`);
 * a plain call's does not (on stdio nothing on the wire ties a request to the call it serves), so
 * it goes to the only call running or, when several run, to the newest: a downstream that asks
 * during several concurrent plain calls cannot be told apart, and the newest is the likeliest asker.
 */
export class CallsInFlight {
    /** Oldest first. An array, not a Set: a Set under per-call churn keeps its calls alive for the GC (see InFlight). */
    private readonly running: ToolContext[] = [];
    private readonly byTask = new Map<string, ToolContext>();

    get size(): number {
        return this.running.length;
    }

    /** Registers a running call; the returned function ends it. */
    begin(ctx: ToolContext): () => void {
        this.running.push(ctx);
        return () => {
            const index = this.running.lastIndexOf(ctx);
            if (index >= 0) {
                this.running.splice(index, 1);
            }
        };
    }

    /** Ties a downstream task to the call that mirrors it; the returned function unties it. */
    bindTask(downstreamTaskId: string, ctx: ToolContext): () => void {
        this.byTask.set(downstreamTaskId, ctx);
        return () => this.byTask.delete(downstreamTaskId);
    }

    /** The call a downstream request belongs to, or undefined when no call runs. */
    route(params: { _meta?: Record<string, unknown> } | undefined): ToolContext | undefined {
        const related = params?._meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
        if (typeof related?.taskId === 'string') {
            return this.byTask.get(related.taskId);
        }
        return this.running[this.running.length - 1];
    }

    /** The downstream's request params as our task asks them: its own task `_meta` means nothing upstream. */
    static upstreamParams<P extends { _meta?: Record<string, unknown> }>(params: P): P {
        if (!params._meta) {
            return params;
        }
        const meta = { ...params._meta };
        delete meta[RELATED_TASK_META_KEY];
        const copy = { ...params };
        if (Object.keys(meta).length > 0) {
            copy._meta = meta;
        } else {
            delete copy._meta;
        }
        return copy;
    }
}
