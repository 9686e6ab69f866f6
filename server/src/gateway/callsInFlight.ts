import { RELATED_TASK_META_KEY } from '../contract.js';
import { LinkedList, type ListNode } from '../linkedList.js';
import type { ToolContext } from '../tools/types.js';

/**
 * The calls running on one downstream, so a question it sends (elicitation, sampling) reaches the
 * user of the call that asks. A downstream task's question names its task (related-task `_meta`);
 * a plain call's does not (on stdio nothing on the wire ties a request to the call it serves), so
 * it goes to the only call running or, when several run, to the newest: a downstream that asks
 * during several concurrent plain calls cannot be told apart, and the newest is the likeliest asker.
 */
export class CallsInFlight {
    /** Newest last. A linked list: begin and end are O(1) however many run (an array's lastIndexOf and splice cost a few per cent of the gateway's CPU at 32 in flight). */
    private readonly running = new LinkedList<RunningCall>();
    private readonly byTask = new Map<string, ToolContext>();

    get size(): number {
        return this.running.size;
    }

    /** Registers a running call; its end() ends it. */
    begin(ctx: ToolContext): RunningCall {
        const call = new RunningCall(ctx, this.running);
        this.running.push(call);
        return call;
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
        return this.running.last?.ctx;
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

/** A call registered with CallsInFlight.begin, until its end(). */
export class RunningCall implements ListNode<RunningCall> {
    prev?: RunningCall;
    next?: RunningCall;
    listed = false;

    constructor(
        readonly ctx: ToolContext,
        private readonly running: LinkedList<RunningCall>,
    ) {}

    /** The call ended; again is nothing. */
    end(): void {
        this.running.remove(this);
    }
}
