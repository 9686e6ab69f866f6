import { RELATED_TASK_META_KEY } from '../contract.js';
import { LinkedList, type ListNode } from '../util/linkedList.js';
import type { ToolContext } from '../tools/types.js';

/**
 * The calls running on one downstream, so a question it sends (elicitation, sampling) reaches the
 * user of the call that asks, and never another client's. A downstream task's question names its
 * task (related-task `_meta`); a plain call's does not (on stdio nothing on the wire ties a
 * request to the call it serves). So a question that names no task goes to the client whose plain
 * calls are running, the newest of them, only when every one running is that client's: with
 * several clients' calls running it could be any of them, and the question is refused (`AMBIGUOUS`)
 * rather than shown to a user it may not belong to.
 */
/** route's answer for a question that calls of several clients could have asked. */
export const AMBIGUOUS = Symbol('ambiguous');

export class CallsInFlight {
    /** Newest last. A linked list: begin and end are O(1) however many run (an array's lastIndexOf and splice cost a few per cent of the gateway's CPU at 32 in flight). */
    private readonly running = new LinkedList<RunningCall>();
    private readonly byTask = new Map<string, ToolContext>();

    get size(): number {
        return this.running.size;
    }

    /** Registers a running call (`task`: one that mirrors a downstream task, whose questions name it); its end() ends it. */
    begin(ctx: ToolContext, task = false): RunningCall {
        const call = new RunningCall(ctx, this.running, task);
        this.running.push(call);
        return call;
    }

    /** Ties a downstream task to the call that mirrors it; the returned function unties it. */
    bindTask(downstreamTaskId: string, ctx: ToolContext): () => void {
        this.byTask.set(downstreamTaskId, ctx);
        return () => this.byTask.delete(downstreamTaskId);
    }

    /** The call a downstream request belongs to; undefined when no call runs; AMBIGUOUS when it could belong to several clients. */
    route(params: { _meta?: Record<string, unknown> } | undefined): ToolContext | typeof AMBIGUOUS | undefined {
        const related = params?._meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
        if (typeof related?.taskId === 'string') {
            return this.byTask.get(related.taskId);
        }
        // A question that names no task is a plain call's; only when no plain call runs may it be a task's that left its name out.
        const plain = this.newest(false);
        return plain ? this.oneClient(plain, false) : this.oneClient(this.newest(true), true);
    }

    private newest(tasks: boolean): RunningCall | undefined {
        for (let call = this.running.last; call; call = call.prev) {
            if (tasks || !call.task) {
                return call;
            }
        }
        return undefined;
    }

    /** `newest`'s call when every call running of its kind is of the same client (a call of unknown client counts as another). */
    private oneClient(newest: RunningCall | undefined, tasks: boolean): ToolContext | typeof AMBIGUOUS | undefined {
        if (!newest) {
            return undefined;
        }
        const key = newest.ctx.clientKey;
        for (let call = newest.prev; call; call = call.prev) {
            if ((tasks || !call.task) && (key === undefined || call.ctx.clientKey !== key)) {
                return AMBIGUOUS;
            }
        }
        return newest.ctx;
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
        readonly task: boolean,
    ) {}

    /** The call ended; again is nothing. */
    end(): void {
        this.running.remove(this);
    }
}
