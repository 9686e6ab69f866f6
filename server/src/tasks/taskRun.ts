import { errorMessage, type Logger } from '../util/log.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { CallToolResult, ChildTask, SpawnOptions, ToolContext, ToolDefinition } from '../tools/types.js';
import type { Clock, ClockTimer } from '../util/clock.js';
import { ExternalJob } from './external.js';
import { parseCreateMessageResult, parseElicitResult } from './inputReplies.js';
import type { ClientHub, ClientIdentity, InputCapability } from './hub.js';
import type { TaskInputRequests } from './inputRequests.js';
import { cancelledOutcome, outcomeOfError, resultText, stopReason, withStopNote } from './outcomes.js';
import { spawnChild } from './spawn.js';
import { isTerminal, type LiveStatus, type ProgressUpdate, type TaskOutcome, type TaskRecord, type TaskStore, type TerminalStatus } from './types.js';
import { relatedTaskMeta } from './wire.js';

type ElicitParams = Parameters<ToolContext['elicit']>[0];
type SamplingParams = Parameters<ToolContext['createMessage']>[0];

/** How a task stops: a terminal status, or `expired` (its record is gone). */
export type StopStatus = TerminalStatus | 'expired';

export interface ChildOptions {
    ttl?: number;
    parent: TaskRun;
    onProgress?: (update: ProgressUpdate) => void;
}

/** What a TaskRun needs from the runtime that holds it. */
export interface RunHost {
    readonly store: TaskStore;
    readonly tools: ToolRegistry;
    readonly hub: ClientHub;
    readonly log: Logger;
    readonly clock: Clock;
    readonly limits: { maxSubtaskDepth: number; maxChildrenPerTask: number };
    /** Where the input requests of 2026-07-28 clients' tasks wait for tasks/update. */
    readonly inputs?: TaskInputRequests;
    /** The run of `taskId` in this process, if it runs here. */
    runOf(taskId: string): TaskRun | undefined;
    /** Lets go of a run that is stopping: drops it from the runtime's map, with what the runtime tracks for it (its input requests, its abandonment watch). */
    forget(run: TaskRun): void;
    createTask(client: ClientIdentity, tool: ToolDefinition, args: Record<string, unknown>, options: ChildOptions): Promise<TaskRecord>;
    result(client: ClientIdentity, taskId: string, signal?: AbortSignal): Promise<{ task: TaskRecord; outcome: TaskOutcome }>;
}

const NO_RECORD: Promise<undefined> = Promise.resolve(undefined);
const noRecord = (): undefined => undefined;

/**
 * One task this process acts on: for a task running here, its code's context (signal, sleep,
 * progress, input requests, sub-tasks), its children and its external job; for one running
 * elsewhere (a cancel, an external job's end seen from here), just the way to stop it.
 * `stop` is the only writer of a task's terminal state. Methods live on the prototype and the
 * AbortController is made on the first read of `signal`, so a task that never waits costs one
 * small object.
 */
export class TaskRun implements ToolContext {
    /** 0 for a task a client started, its parent's + 1 for a sub-task. */
    readonly depth: number;
    /** Sub-tasks started over the task's life (reserved before the store call, so concurrent spawns count). */
    spawned = 0;
    /** The external job behind the task, for tools whose tasks live in another system. */
    external?: ExternalJob;
    /** Set by the task's first request to a 2025-11-25 client (see requestInput). */
    private askedBefore = false;
    private controller?: AbortController;
    private reason?: Error;
    private sleeper?: Sleeper;
    private pendingInput = 0;
    /** The statusMessage this run last stored (see tell). */
    private statusMessage?: string;
    /** The outcome in words the tool gave (conclude): the completed task's statusMessage. */
    private conclusion?: string;
    /** The highest progress value sent, and the total last given: status notes continue from them. */
    private progressSent?: number;
    private progressTotal?: number;
    /** Live sub-tasks running here, made on the first. */
    private children?: Set<TaskRun>;
    /** The tool's code has returned or thrown: there is nothing left to abort. */
    private returned: boolean;
    /** What must settle before a stopped task's end is recorded (holdEnd). */
    private holding?: Promise<unknown>;
    /** What the tool had to say when it was stopped (annotateStop). */
    private stopNote?: CallToolResult;
    /** How the work goes on without this server when it shuts down (outliveServer). */
    detach?: () => Promise<void>;
    /** Set by the first stop(): the terminal write (or nothing, when the end was recorded elsewhere). */
    private ending?: Promise<TaskRecord | undefined>;

    /** Set by the runtime for a task whose client cannot be asked from a task at all (CreateTaskOptions.askNoClient). */
    askNoClient = false;

    constructor(
        readonly host: RunHost,
        readonly record: TaskRecord,
        readonly parent: TaskRun | undefined,
        /** Whether the task's work runs in this process. */
        readonly here: boolean,
        private readonly onProgress?: (update: ProgressUpdate) => void,
    ) {
        this.depth = parent ? parent.depth + 1 : 0;
        this.returned = !here;
        if (parent) {
            (parent.children ??= new Set()).add(this);
        }
    }

    /** A task that runs elsewhere (another replica, or nowhere any more), for stopping it from here. */
    static elsewhere(host: RunHost, record: TaskRecord): TaskRun {
        const run = new TaskRun(host, record, undefined, false);
        const handler = host.tools.get(record.toolName)?.external;
        if (handler && record.externalRef) {
            run.external = new ExternalJob(run, handler, record.externalRef);
        }
        return run;
    }

    get taskId(): string {
        return this.record.taskId;
    }

    get log(): Logger {
        return this.host.log;
    }

    get ttl(): number {
        return this.record.ttl;
    }

    get signal(): AbortSignal {
        if (!this.controller) {
            this.controller = new AbortController();
            if (this.reason) {
                this.controller.abort(this.reason);
            }
        }
        return this.controller.signal;
    }

    /** The task is ending or its code was told to stop: no new children, no progress. */
    get stopping(): boolean {
        return this.ending !== undefined || this.reason !== undefined;
    }

    /** Runs the tool's code, or submits its external job. Never throws: the end goes through stop(). */
    start(tool: Pick<ToolDefinition, 'run' | 'external'>, args: Record<string, unknown>): void {
        if (tool.external) {
            this.external = new ExternalJob(this, tool.external);
            void this.external.start(args);
            return;
        }
        let running: Promise<CallToolResult>;
        try {
            running = tool.run!(args, this);
        } catch (err) {
            running = Promise.reject(err);
        }
        // A then() pair rather than an async function: a parked async frame keeps some 500 bytes per running task.
        void running.then(
            result => this.returnedWith(result),
            (err: unknown) => this.threw(err),
        );
    }

    /**
     * The one place that decides what happens when a task stops, however it stops: its code
     * completes or fails, a client or the owner cancels it, the server shuts down or its client
     * leaves, its parent ends, its external job ends, or its end was recorded elsewhere (another
     * replica's cancel, the reaper failing a lost worker's tasks) or it expired (`outcome`
     * undefined: nothing to write). The first call acts; later ones wait for it and get undefined.
     *
     * In order: its code is aborted, the run leaves the runtime (so the store event of its own
     * write finds nothing to react to) and takes what the runtime tracks for it along (its input
     * requests, its abandonment watch: the event bus only wakes a run whose end was decided elsewhere), its external job is let go (and cancelled when this cancels
     * the task), its live sub-tasks are cancelled depth-first (each child's end is published before
     * its parent's), and last the store records the one terminal transition.
     */
    stop(status: StopStatus, outcome?: TaskOutcome, message?: string, news = true): Promise<TaskRecord | undefined> {
        if (this.ending) {
            return this.ending.then(noRecord);
        }
        if (!this.returned) {
            this.halt(stopReason(`Task ${status}${message ? `: ${message}` : ''}`));
        }
        if (this.here) {
            this.host.forget(this);
            this.parent?.children?.delete(this);
        }
        if (this.external === undefined && this.here && !this.children?.size && !this.holding) {
            // The common case, kept free of async frames: nothing else to stop. A note the tool gave as it was stopped (annotateStop, synchronously) still counts.
            if (this.stopNote && status === 'cancelled' && outcome) {
                outcome = withStopNote(outcome, this.stopNote);
            }
            this.ending = outcome && status !== 'expired' ? this.recordEnd(status, outcome, message, news) : NO_RECORD;
        } else {
            this.ending = this.stopAll(status, outcome, message, news);
        }
        return this.ending;
    }

    /**
     * Stops a task whose end another process is deciding (a cancel whose cascade reached this
     * task's child): through stop, writing nothing, since the canceller records the end after its
     * children's. Should that record not come within ELSEWHERE_GRACE_MS (the canceller died
     * meanwhile), this process records it, so no stopped task is left unrecorded.
     */
    stopDecidedElsewhere(message: string): void {
        this.stop('cancelled', undefined, message)
            .then(() => this.recordUnlessRecorded(message))
            .then(undefined, err => this.warnUnrecorded(err));
    }

    private async recordUnlessRecorded(message: string): Promise<void> {
        const { clock } = this.host;
        const grace = new AbortController();
        const timer = clock.setTimeout(controller => controller.abort(new Error('grace over')), ELSEWHERE_GRACE_MS, grace, true);
        try {
            await this.host.result({ clientKey: this.record.clientKey, isOwner: false }, this.taskId, grace.signal);
        } catch (err) {
            if (!grace.signal.aborted) {
                // Gone (expired) or unreadable: nothing to record.
                this.host.log.debug(`[tasks] the end of ${this.taskId} was not awaited: ${errorMessage(err)}`);
                return;
            }
            const recorded = await this.host.store.finish(this.taskId, 'cancelled', cancelledOutcome(message), message);
            if (recorded) {
                this.host.log.warn(`[tasks] recorded the end of ${this.taskId} here: the process that cancelled it did not within ${ELSEWHERE_GRACE_MS / 1000} s`);
            }
        } finally {
            clock.clearTimeout(timer);
        }
    }

    /** Aborts the code (signal, sleep); only stop() calls it, so no way of ending skips the record. Later calls keep the first reason. */
    private halt(reason: Error): void {
        if (this.reason) {
            return;
        }
        this.reason = reason;
        const sleeper = this.sleeper;
        if (sleeper) {
            this.sleeper = undefined;
            this.host.clock.clearTimeout(sleeper.timer);
            sleeper.reject(reason);
        }
        this.controller?.abort(reason);
    }

    private async stopAll(status: StopStatus, outcome: TaskOutcome | undefined, message: string | undefined, news: boolean): Promise<TaskRecord | undefined> {
        await this.holding?.catch(noRecord);
        if (this.stopNote && status === 'cancelled' && outcome) {
            outcome = withStopNote(outcome, this.stopNote);
        }
        // What the tool concluded as it was stopped (a stop it could not confirm) is what the sidebar must show.
        if (this.conclusion !== undefined && status === 'cancelled') {
            message = message === undefined ? this.conclusion : `${message}. ${this.conclusion}`;
        }
        const job = this.external;
        this.external = undefined;
        await job?.release(status === 'cancelled' && outcome !== undefined);
        const how = status === 'cancelled' ? 'was cancelled' : status;
        if (this.here) {
            for (const child of [...(this.children ?? [])]) {
                await this.cancelChild(child, how);
            }
        } else {
            await this.cancelChildrenInStore(how).catch(err => this.host.log.warn(`[subtasks] cancelling the children of ${this.taskId} failed: ${errorMessage(err)}`));
        }
        return outcome && status !== 'expired' ? this.recordEnd(status, outcome, message, news) : undefined;
    }

    /**
     * The terminal write. Its statusMessage, when it has one the task's follower did not ask for
     * (not its own client's cancel), is first sent as the last progress note: after the terminal
     * status no progress may follow. Only the process running the task knows where progress stands.
     */
    private recordEnd(status: TerminalStatus, outcome: TaskOutcome, message: string | undefined, news: boolean): Promise<TaskRecord | undefined> {
        if (message !== undefined && news && this.here && this.followed) {
            this.publish(this.nextProgress(), this.progressTotal, message);
        }
        return this.host.store.finish(this.taskId, status, outcome, message);
    }

    private async cancelChild(child: TaskRun, how: string): Promise<void> {
        const message = `Cancelled because parent task ${this.taskId} (${this.record.toolName}) ${how}`;
        await child.stop('cancelled', cancelledOutcome(message, this.taskId), message).catch(err => this.host.log.warn(`[subtasks] cancelling ${child.taskId} failed: ${errorMessage(err)}`));
    }

    /** Children of a task that does not run here are found through the store, wherever they run. */
    private async cancelChildrenInStore(how: string): Promise<void> {
        const { store } = this.host;
        let cursor: string | undefined;
        do {
            const page = await store.list({ clientKey: this.record.clientKey, parentTaskId: this.taskId, cursor, limit: CHILDREN_PAGE_SIZE });
            for (const child of page.tasks) {
                if (!isTerminal(child.status)) {
                    await this.cancelChild(this.host.runOf(child.taskId) ?? TaskRun.elsewhere(this.host, child), how);
                }
            }
            cursor = page.nextCursor;
        } while (cursor);
    }

    private returnedWith(result: CallToolResult): void {
        this.returned = true;
        if (!this.ending) {
            const failed = result.isError === true;
            this.stop(failed ? 'failed' : 'completed', { result }, failed ? (this.conclusion ?? resultText(result)) : this.conclusion).then(undefined, err => this.warnUnrecorded(err));
        }
    }

    private threw(err: unknown): void {
        this.returned = true;
        // Code that throws because it was told to stop has nothing to add: whoever stopped it records the end.
        if (!this.ending && !this.reason) {
            this.stop('failed', outcomeOfError(this.record.toolName, err), errorMessage(err)).then(undefined, failure => this.warnUnrecorded(failure));
        }
    }

    private warnUnrecorded(err: unknown): void {
        this.host.log.warn(`[tasks] could not record the end of task ${this.taskId}: ${errorMessage(err)}`);
    }

    // ToolContext

    get clientKey(): string {
        return this.record.clientKey;
    }

    conclude(message: string): void {
        this.conclusion = message;
    }

    annotateStop(result: CallToolResult): void {
        this.stopNote = result;
    }

    outliveServer(detach: () => Promise<void>): void {
        this.detach = detach;
    }

    holdEnd(work: Promise<unknown>): void {
        const before = this.holding;
        this.holding = before ? Promise.all([before, work]) : work;
    }

    /** One pending wait is kept on the run itself, so stopping needs no listener. */
    sleep(ms: number): Promise<void> {
        if (this.reason) {
            return Promise.reject(this.reason);
        }
        if (this.sleeper) {
            return this.sleepOnSignal(ms);
        }
        return new Promise<void>((resolve, reject) => {
            this.sleeper = { timer: this.host.clock.setTimeout(wakeSleeper, ms, this), resolve, reject };
        });
    }

    /** @internal the timer of a sleep fired. */
    woke(): void {
        const sleeper = this.sleeper;
        this.sleeper = undefined;
        sleeper?.resolve();
    }

    /** A second wait at the same time: rare enough for a signal listener. */
    private sleepOnSignal(ms: number): Promise<void> {
        const { clock } = this.host;
        const signal = this.signal;
        return new Promise((resolve, reject) => {
            const onAbort = () => {
                clock.clearTimeout(timer);
                reject(signal.reason);
            };
            const timer = clock.setTimeout(
                () => {
                    signal.removeEventListener('abort', onAbort);
                    resolve();
                },
                ms,
                undefined,
            );
            signal.addEventListener('abort', onAbort, { once: true });
        });
    }

    /** The tool's own latest figures (not the status notes' increments): get_task shows them when no message says more. */
    reported?: { progress: number; total?: number };

    progress(progress: number, total?: number, message?: string): void {
        if (this.stopping) {
            return;
        }
        this.reported = { progress, total };
        // A new message is stored first (quietly: the progress note announces it), so a tasks/get
        // sent on seeing the note reads it.
        if (message !== undefined && message !== this.statusMessage && this.pendingInput === 0 && this.followed) {
            this.statusMessage = message;
            this.host.store.setStatus(this.taskId, 'working', message, true).then(undefined, err => this.host.log.debug(`[tasks] status message of ${this.taskId} not saved: ${errorMessage(err)}`));
        }
        const update = this.publish(progress, total, message);
        if (this.onProgress) {
            try {
                this.onProgress(update);
            } catch {
                // A parent's progress hook must not break the child.
            }
        }
    }

    /**
     * Whether a person follows this task's messages: its client gave a progress token (VS Code
     * shows progress messages, not statusMessage), or it runs in the background (get_task reads
     * statusMessage). Such a task's person-relevant changes (progress messages, waiting for input,
     * resuming, ending) are both sent as progress and stored as statusMessage, in step.
     */
    private get followed(): boolean {
        return this.record.progressToken !== undefined || this.record.background === true;
    }

    private publish(progress: number, total: number | undefined, message: string | undefined): ProgressUpdate {
        const update = { progress, total, message };
        if (this.progressSent === undefined || progress > this.progressSent) {
            this.progressSent = progress;
        }
        this.progressTotal = total;
        this.host.store.publishProgress(this.record, update);
        return update;
    }

    /** The value of a status note: progress must increase with each notification, so a hair above the last (0 first). */
    private nextProgress(): number {
        const last = this.progressSent;
        return last === undefined ? 0 : last + Math.max(Math.abs(last), 1) * PROGRESS_STEP;
    }

    /** A live status change a person should hear of: stored (with its event) and, for a followed task, sent as progress. */
    private async tell(status: LiveStatus, message: string): Promise<void> {
        this.statusMessage = message;
        const stored = await this.host.store.setStatus(this.taskId, status, message);
        if (stored && this.followed && !this.stopping) {
            this.publish(this.nextProgress(), this.progressTotal, message);
        }
    }

    async elicit(params: ElicitParams) {
        const raw = await this.requestInput('elicitation', 'elicitation/create', params, `Waiting for the user: ${params.message}`, "Got the user's answer; continuing");
        return parseElicitResult(raw);
    }

    async createMessage(params: SamplingParams) {
        const raw = await this.requestInput('sampling', 'sampling/createMessage', params, "Waiting for the client's language model", "Got the language model's answer; continuing");
        return parseCreateMessageResult(raw);
    }

    spawn(toolName: string, args?: Record<string, unknown>, options?: SpawnOptions): Promise<ChildTask> {
        return spawnChild(this, toolName, args, options);
    }

    /**
     * Why no one can answer: the client did not declare the capability, or (a task a 2026-07-28
     * client started with a start_ tool, or a sub-task of one) it can be asked only within a call's
     * own answer, which the tool called directly would do.
     */
    private root(): TaskRun {
        return this.parent ? this.parent.root() : this;
    }

    private nobodyToAsk(capability: InputCapability): string {
        const root = this.root();
        const why = root.askNoClient
            ? `the client that started this task can be asked only within a call's own answer, and this task runs in the background (call ${root.record.toolName} directly to be asked within the call)`
            : `the client that started this task did not declare the ${capability} capability`;
        return `Nobody can answer this task's ${capability} request: ${why}, and no editor is connected to answer for it`;
    }

    private async requestInput(capability: InputCapability, method: string, params: object, waitingMessage: string, resumedMessage: string): Promise<Record<string, unknown>> {
        const { hub } = this.host;
        const { taskId, clientKey } = this.record;
        // A stateless (2026-07-28) client's task asks through its inputRequests; otherwise the
        // task's own client answers when it can, or else the owner (the editor) answers for it.
        const inputs = this.host.inputs?.handles(this) ? this.host.inputs : undefined;
        const link = inputs ? undefined : (hub.pickFor(clientKey, capability) ?? hub.pickOwner(capability));
        if (!inputs && !link) {
            throw new Error(this.nobodyToAsk(capability));
        }
        const signal = this.signal;
        this.pendingInput++;
        if (this.pendingInput === 1) {
            await this.tell('input_required', waitingMessage);
        }
        try {
            if (inputs) {
                return await inputs.ask(this, capability, { method, params: params as Record<string, unknown> }, signal);
            }
            if (!this.askedBefore) {
                // The task's first request to the client waits one turn, so that the answer to the
                // call that created the task (its CreateTaskResult) is out first: a client that
                // matches input requests to the tasks it knows (ext-tasks) otherwise meets an
                // unknown task id on a pipe, where both go out in the same write.
                this.askedBefore = true;
                await new Promise(resolve => setImmediate(resolve));
            }
            const withMeta = params as { _meta?: Record<string, unknown> };
            return await link!.request(method, { ...params, _meta: { ...withMeta._meta, ...relatedTaskMeta(taskId) } }, { relatedTaskId: taskId, signal });
        } catch (err) {
            // The client's error answer is this tool's failure, not the error tools/call would return:
            // passed through, a -32602 from tasks/result would read as "no such task".
            if (err instanceof RpcError && !signal.aborted) {
                throw new Error(err.code === ErrorCodes.ConnectionClosed ? err.message : `The client answered ${method} with an error: ${err.message} (code ${err.code})`, { cause: err });
            }
            throw err;
        } finally {
            this.pendingInput--;
            if (this.pendingInput === 0 && !signal.aborted) {
                await this.tell('working', resumedMessage);
            }
        }
    }
}

export const CHILDREN_PAGE_SIZE = 100;

/** How long a task stopped because another process is cancelling it waits for that process to record its end. */
export const ELSEWHERE_GRACE_MS = 10_000;

/** How far above the last progress value a status note goes (relative; invisible in any percentage). */
const PROGRESS_STEP = 1e-6;

interface Sleeper {
    timer: ClockTimer;
    resolve(): void;
    reject(reason: Error): void;
}

/** One function for every sleeping task's timer (its argument says whose), instead of a closure each. */
function wakeSleeper(run: TaskRun): void {
    run.woke();
}
