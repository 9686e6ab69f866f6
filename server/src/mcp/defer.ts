import { LinkedList, type ListNode } from '../util/linkedList.js';
import { errorMessage, type Logger } from '../util/log.js';
import { RequestAbort } from '../rpc/requestAbort.js';
import { relatedTaskMeta } from '../tasks/wire.js';
import { mayDefer } from '../tools/registry.js';
import { onStop, sleep, type CallToolResult, type ToolContext, type ToolDefinition } from '../tools/types.js';
import type { Clock, ClockTimer } from '../util/clock.js';
import type { RequestContext } from './context.js';
import { waitLimitSeconds } from './taskTools.js';

/**
 * What a call in its request reports and asks through, whichever revision serves it: a
 * 2025-11-25 session's request stream (session/adapter.ts), or a 2026-07-28 call's round
 * (rev2026/rounds.ts), which alone has `input` and `clientCapabilities`.
 */
export interface RequestChannel extends Pick<ToolContext, 'progress' | 'progressWatched' | 'elicit' | 'createMessage' | 'spawn' | 'input' | 'clientCapabilities'> {
    /** A 2026-07-28 call that asked something not answered yet: it answers input_required this turn, so it is not deferred. */
    readonly endingRound?: boolean;
}

/** Runs a tool's code with a context. */
export type RunTool = (tool: ToolDefinition, args: Record<string, unknown>, ctx: ToolContext) => Promise<CallToolResult>;

/** Whether a plain call of `tool` may be deferred: only where a model can follow the task (get_task), and only for code we run (not external jobs). */
export function deferAfterFor(ctx: RequestContext, tool: ToolDefinition): number | undefined {
    const { deferAfterMs, taskTools } = ctx.services;
    return deferAfterMs && taskTools && mayDefer(tool) ? deferAfterMs : undefined;
}

/**
 * The plain-call hook of --defer-after, the one place that decides it for both revisions: a
 * `tools/call` without `task` (2025-11-25) or without the tasks extension (2026-07-28) of a
 * task-capable tool that is still running after `deferAfterMs` is answered with an ordinary result
 * saying the work goes on as task X, and the work goes on as that task (the host's own timeout, 60 s
 * in most, would otherwise lose it). Until then it is an inline call like any other: its progress
 * and questions go on the request, and a host that cancels cancels the work. Calls that end in time
 * cost a place in their clock's DeferralQueue, nothing else (no AbortController unless the tool
 * reads its signal): the task is created only when the time is up.
 */
export function runDeferrable(ctx: RequestContext, tool: ToolDefinition, args: Record<string, unknown>, channel: RequestChannel, deferAfterMs: number, run: RunTool): Promise<CallToolResult> {
    return new DeferrableCall(ctx, tool, args, channel, deferAfterMs, run).result;
}

/** One plain call that may turn into a task; it is also the tool's context, before and after. */
class DeferrableCall implements ToolContext, Deferrable {
    readonly result: Promise<CallToolResult>;
    private answer!: (result: CallToolResult | Promise<CallToolResult>) => void;
    private refuse!: (err: unknown) => void;
    private readonly work: Promise<CallToolResult>;
    /** The work's own stop (the request's cancel before it is deferred, the task's after): its AbortController is made only if the tool reads `signal`. */
    private readonly stops = new RequestAbort();
    /** The task's run, once the call was deferred: progress and questions go through it from then on. */
    private task?: ToolContext;
    private settled = false;
    /** The time is up and the deferral is under way: it answers the call, not the work's end. */
    private deferring = false;
    /** @internal DeferralQueue's: when the time is up, and its place in the queue. */
    deadline = 0;
    /** @internal */
    prev?: Deferrable;
    /** @internal */
    next?: Deferrable;
    /** @internal */
    listed = false;
    private readonly queue: DeferralQueue;
    /** What the tool asked to settle before a stopped task's end is recorded (passed on once it is a task). */
    private held?: Promise<unknown>;
    private onTask?: ((taskId: string) => void)[];
    private readonly onRequestAbort = (reason: unknown) => this.stop(reason);

    private readonly abort: RequestAbort;

    constructor(
        private readonly ctx: RequestContext,
        private readonly tool: ToolDefinition,
        private readonly args: Record<string, unknown>,
        private readonly channel: RequestChannel,
        private readonly deferAfterMs: number,
        run: RunTool,
    ) {
        const abort = (this.abort = ctx.abort);
        abort.whenAborted(this.onRequestAbort);
        ctx.services.log.debug(`[${ctx.revision.name}] tools/call ${tool.name} running inline (deferred after ${deferAfterMs} ms)`);
        this.result = new Promise((resolve, reject) => {
            this.answer = resolve;
            this.refuse = reject;
        });
        const work = (this.work = run(tool, args, this));
        this.queue = DeferralQueue.of(ctx.services.runtime.clock);
        this.queue.add(this, deferAfterMs);
        work.then(
            result => this.ended(result, undefined, false),
            (err: unknown) => this.ended(undefined, err, true),
        );
    }

    /** @internal the defer time is up. */
    timeUp(): void {
        if (this.settled) {
            return;
        }
        this.deferring = true;
        // Answered: a call that did not become a task stops listening for its request's cancel, as when it ends in time.
        const stillInline = () => {
            if (this.task === undefined) {
                this.abort.offAborted(this.onRequestAbort);
            }
        };
        this.defer().then(
            result => {
                stillInline();
                this.answer(result);
            },
            (err: unknown) => {
                stillInline();
                this.refuse(err);
            },
        );
    }

    /** The work ended; unless a deferral is under way (it answers then), so does the call. */
    private ended(result: CallToolResult | undefined, err: unknown, failed: boolean): void {
        this.settled = true;
        this.queue.remove(this);
        if (this.deferring) {
            return;
        }
        this.abort.offAborted(this.onRequestAbort);
        if (failed) {
            this.refuse(err);
        } else {
            this.answer(result!);
        }
    }

    private stop(reason: unknown): void {
        this.stops.abort(reason);
    }

    whenStopped(listener: (reason: unknown) => void): () => void {
        const { stops } = this;
        stops.whenAborted(listener);
        return () => stops.offAborted(listener);
    }

    get signal(): AbortSignal {
        return this.stops.signal;
    }

    get log(): Logger {
        return this.ctx.services.log;
    }

    get taskId(): string | undefined {
        return this.task?.taskId;
    }

    get ttl(): number | undefined {
        return this.task?.ttl;
    }

    /** Only while the call is in its request (a 2026-07-28 round): a task asks one question at a time. */
    get input(): ToolContext['input'] {
        return this.task ? undefined : this.channel.input;
    }

    get clientCapabilities(): Record<string, unknown> | undefined {
        return this.task ? undefined : this.channel.clientCapabilities;
    }

    sleep(ms: number): Promise<void> {
        return sleep(ms, this.signal);
    }

    /** Until it is a task, as its request says; a task keeps its progress. */
    get progressWatched(): boolean {
        return this.task !== undefined || this.channel.progressWatched !== false;
    }

    progress(progress: number, total?: number, message?: string): void {
        (this.task ?? this.channel).progress(progress, total, message);
    }

    elicit(params: Parameters<ToolContext['elicit']>[0]): ReturnType<ToolContext['elicit']> {
        return (this.task ?? this.channel).elicit(params);
    }

    createMessage(params: Parameters<ToolContext['createMessage']>[0]): ReturnType<ToolContext['createMessage']> {
        return (this.task ?? this.channel).createMessage(params);
    }

    spawn(...args: Parameters<ToolContext['spawn']>): ReturnType<ToolContext['spawn']> {
        return (this.task ?? this.channel).spawn(...args);
    }

    holdEnd(work: Promise<unknown>): void {
        this.held = this.held ? Promise.all([this.held, work]) : work;
        this.task?.holdEnd?.(work);
    }

    annotateStop(result: CallToolResult): void {
        this.task?.annotateStop?.(result);
    }

    conclude(message: string): void {
        this.task?.conclude?.(message);
    }

    onDeferred(listener: (taskId: string) => void): void {
        (this.onTask ??= []).push(listener);
    }

    /** Time is up: the running work becomes a background task of the caller, and the call answers with its id. */
    private async defer(): Promise<CallToolResult> {
        const { runtime, log } = this.ctx.services;
        const { work } = this;
        if (this.stops.aborted || this.channel.endingRound) {
            return work;
        }
        // From here the host's cancel of this request no longer reaches the work; the task's does.
        this.abort.offAborted(this.onRequestAbort);
        const adopt: ToolDefinition = {
            ...this.tool,
            run: (_args, task) => {
                this.task = task;
                onStop(task, reason => this.stop(reason));
                if (this.held) {
                    task.holdEnd?.(this.held);
                }
                for (const listener of this.onTask ?? []) {
                    listener(task.taskId!);
                }
                return work;
            },
        };
        let taskId: string;
        try {
            taskId = (await runtime.createTask(this.ctx.identity, adopt, this.args, { background: true })).taskId;
        } catch (err) {
            // No task (a limit, shutdown): the call stays what it was, tied to the request.
            log.warn(`[${this.ctx.revision.name}] could not defer ${this.tool.name}: ${errorMessage(err)}; it goes on inline`);
            this.abort.whenAborted(this.onRequestAbort);
            return work;
        }
        if (this.settled) {
            // It ended while the task was being made (the task has its outcome too): answer with it.
            return work;
        }
        log.info(`[${this.ctx.revision.name}] tools/call ${this.tool.name} still running after the defer time: answered, it goes on as task ${taskId}`);
        return deferredAnswer(this.tool, taskId, this.deferAfterMs);
    }
}

/** What DeferralQueue holds: a DeferrableCall, whose fields it keeps. */
export interface Deferrable extends ListNode<Deferrable> {
    deadline: number;
    timeUp(): void;
}

/**
 * The deferral deadlines of one clock's running plain calls, under one timer: the calls in a list
 * ordered by deadline (as they all wait the same DUR, a new call goes last), the timer set for the
 * first deadline and left set when that call ends early (it then finds the next one not due and is
 * set again for it). Instead of a timer per call: Node's Timeout object, its list entry and the
 * unref bookkeeping, set and cleared on every plain call.
 */
export class DeferralQueue {
    private static readonly byClock = new WeakMap<Clock, DeferralQueue>();
    private readonly calls = new LinkedList<Deferrable>();
    private timer?: ClockTimer;
    /** When the timer fires, if it is set. */
    private armedFor?: number;

    private constructor(private readonly clock: Clock) {}

    static of(clock: Clock): DeferralQueue {
        let queue = DeferralQueue.byClock.get(clock);
        if (!queue) {
            queue = new DeferralQueue(clock);
            DeferralQueue.byClock.set(clock, queue);
        }
        return queue;
    }

    /** Queues `call`, whose time is up `afterMs` from now (unless it is removed first). */
    add(call: Deferrable, afterMs: number): void {
        const deadline = (call.deadline = this.clock.now() + afterMs);
        let before = this.calls.last;
        while (before && before.deadline > deadline) {
            before = before.prev;
        }
        this.calls.insertAfter(call, before);
        if (this.armedFor === undefined || this.armedFor > deadline) {
            this.arm(deadline);
        }
    }

    /** Takes `call` out (it ended in time); nothing if it is not queued. */
    remove(call: Deferrable): void {
        this.calls.remove(call);
    }

    private arm(deadline: number): void {
        if (this.timer !== undefined) {
            this.clock.clearTimeout(this.timer);
        }
        this.armedFor = deadline;
        this.timer = this.clock.setTimeout(fire, Math.max(0, deadline - this.clock.now()), this, true);
    }

    /** @internal the timer's callback: every call due has its time up, and the timer is set for the next. */
    fire(): void {
        this.timer = undefined;
        this.armedFor = undefined;
        const now = this.clock.now();
        let call = this.calls.first;
        while (call && call.deadline <= now) {
            this.calls.remove(call);
            call.timeUp();
            call = this.calls.first;
        }
        if (call) {
            this.arm(call.deadline);
        }
    }
}

/** The timer's callback (an argument of it, not a closure per queue). */
function fire(queue: DeferralQueue): void {
    queue.fire();
}

/**
 * What a deferred call answers, a success (never an error: it is not one, and a host marks an
 * error as a failure to the model): the same words in the text (hosts that show it) and in
 * `structuredContent.next` (Claude Code and Codex show only that), and the task in `_meta`
 * (related-task). A tool with an output schema lists it as "its own, or DEFERRED_ANSWER_SCHEMA"
 * (tools/registry.ts), so clients that check a success against it accept this. Only tools that
 * exist are named: deferral needs the task tools, and a command's log is read with read_output.
 */
function deferredAnswer(tool: ToolDefinition, taskId: string, deferAfterMs: number): CallToolResult {
    const output = tool.output && !tool.outputIsResult ? `, read_output with task_id "${taskId}" for its output so far` : '';
    const next =
        `${tool.name} is still running; it continues in the background as task ${taskId}. ` +
        `Call get_task with task_id "${taskId}" (wait_seconds up to ${waitLimitSeconds(deferAfterMs)}) for its progress and result${output}, and cancel_task to stop it.`;
    return { content: [{ type: 'text', text: next }], structuredContent: { taskId, status: 'working', next }, _meta: relatedTaskMeta(taskId) };
}
