import { errorMessage, type Logger } from '../util/log.js';
import { ErrorCodes, invalidParams, RpcError } from '../rpc/errors.js';
import { ToolRegistry } from '../tools/registry.js';
import { textResult, type ToolDefinition } from '../tools/types.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { ClientHub, ClientIdentity } from './hub.js';
import { notifyOwners, notifyProgress, notifyStatus } from './notifier.js';
import type { OwnerFacts } from './wire.js';
import { cancelledOutcome } from './outcomes.js';
import { TaskRun, type ChildOptions, type RunHost, type StopStatus } from './taskRun.js';
import { copyFlags, mayRead } from './records.js';
import { isTerminal, type NewTask, type RetentionBudget, type TaskFlags, type TaskEvent, type TaskOutcome, type TaskPage, type TaskRecord, type TaskStore } from './types.js';
import { TaskWaiters } from './waiters.js';
import { AbandonWatch } from './abandon.js';
import { TaskInputRequests } from './inputRequests.js';
import { lostMessage, lostRecord, type LostTask } from './lostTasks.js';
import type { RuntimeLimits, StoppedWaitingAction } from '../defaults.js';
export type { RuntimeLimits, StoppedWaitingAction };

export { OWNER_PROGRESS_METHOD, TASK_STATUS_METHOD } from './notifier.js';
export { outcomeOfError, resultText } from './outcomes.js';
const LIST_PAGE_SIZE = 100;
const MIN_TTL_MS = 1000;
/** How often a tasks/result that waits across a store outage reads again, should the store's resync have come before it parked. */
const STORE_RETRY_MS = 1000;

/**
 * Polls a client may miss before it counts as no longer waiting (marked for the owner), plus one
 * for a late timer. VS Code sends nothing when a call is cancelled between polls (its poll in
 * flight, if any, gets a notifications/cancelled, but so does one a status notification
 * overtakes): silence is the signal.
 */
export const STOPPED_AFTER_POLLS = 4;
/**
 * Polls missed before `cancel` ends the task: longer than the mark's window, because a busy editor
 * stalls its polls too (a real VS Code's extension host, reported unresponsive, missed 4 s of
 * polls on a loaded machine while its call still waited); a wrong mark clears itself, a cancel does not.
 */
export const STOPPED_CANCEL_POLLS = 10;

/** How to create a task; its flags (TaskFlags: background, chat) are kept with it. A background task is never abandoned. */
export interface CreateTaskOptions extends TaskFlags {
    ttl?: number;
    progressToken?: string | number;
    /** The run of the task that spawns this one (sub-tasks only). */
    parent?: TaskRun;
    onProgress?: ChildOptions['onProgress'];
    /** Called with the new task's id before its code starts (so before any event of it). */
    onCreated?: (taskId: string) => void;
    /** A stateless (2026-07-28) client's task: its input requests wait for tasks/update, within these capabilities. */
    capabilities2026?: Record<string, unknown>;
    /** Started in the background by a 2026-07-28 request (a start_ tool): its client can be asked only within a call, never by this task. */
    askNoClient?: boolean;
}

/**
 * The tasks running in this process, by id (each a TaskRun, which decides how it stops), and the
 * one handler for store events: notifications, wake-ups, and the ends of tasks running here that
 * were decided elsewhere (another replica, expiry). Its own terminal writes find no run to react to:
 * a run leaves the map as it starts stopping.
 */
export class TaskRuntime implements RunHost {
    private readonly runs = new Map<string, TaskRun>();
    private readonly waiters: TaskWaiters;
    private readonly subscription;
    private abandon?: AbandonWatch;
    private closing = false;
    /** Made once: every create passes it. */
    readonly budget: RetentionBudget;
    /** The input requests of stateless clients' tasks (SEP-2663 inputRequests / tasks/update). */
    readonly inputs: TaskInputRequests;
    /** Tasks of a previous process that died while they ran, by id (see lostTasks.ts). */
    private readonly lost = new Map<string, LostTask>();
    /** The records made for lost tasks (visible()): their result is the lost words, never a stored one. */
    private readonly lostViews = new WeakSet<TaskRecord>();

    constructor(
        readonly store: TaskStore,
        readonly tools: ToolRegistry,
        readonly hub: ClientHub,
        readonly limits: RuntimeLimits,
        readonly log: Logger,
        readonly workerId: string,
        readonly clock: Clock = systemClock,
    ) {
        this.budget = { maxTasks: limits.maxRetainedTasksPerClient ?? Infinity, maxBytes: limits.maxRetainedBytesPerClient ?? Infinity };
        this.waiters = new TaskWaiters(taskId => store.get(taskId));
        this.subscription = store.onEvent(event => this.onStoreEvent(event));
        this.inputs = new TaskInputRequests(store, log);
        if (limits.abandonAfterMs) {
            this.abandon = this.abandonWatch();
        }
    }

    /** What the owner's view of a task adds to the record: the tool's key argument, whether its client still waits. */
    readonly ownerFacts: OwnerFacts = {
        keyArgumentOf: toolName => this.tools.keyArgumentOf(toolName),
        stoppedWaitingAt: taskId => this.stoppedWaitingAt(taskId),
    };

    /** Answers for these ids as failed from now on (a client may still wait on one); the ids are unguessable, so any client may read that. */
    rememberLost(tasks: readonly LostTask[]): void {
        for (const task of tasks) {
            this.lost.set(task.taskId, task);
        }
    }

    get runningCount(): number {
        return this.runs.size;
    }

    clampTtl(requested: number | undefined): number {
        const ttl = requested ?? this.limits.defaultTtlMs;
        return Math.min(Math.max(ttl, MIN_TTL_MS), this.limits.maxTtlMs);
    }

    async createTask(client: ClientIdentity, tool: ToolDefinition, args: Record<string, unknown>, options: CreateTaskOptions = {}): Promise<TaskRecord> {
        if (this.closing) {
            throw new RpcError(ErrorCodes.InternalError, 'Server is shutting down');
        }
        const { parent } = options;
        const input: NewTask = {
            clientKey: client.clientKey,
            clientName: client.clientName,
            toolName: tool.name,
            args,
            ttl: this.clampTtl(options.ttl),
            pollInterval: this.limits.pollIntervalMs,
            parentTaskId: parent?.taskId,
            progressToken: options.progressToken,
            worker: this.workerId,
        };
        copyFlags(options, input);
        // Work that ends with this process starts before its task is written (it is answered only
        // after): a task that ends at once, as most tool calls of an editor that makes every call a
        // task do, is written once, as it ended, not twice.
        const startsAtOnce = !tool.outlivesServer && !tool.external;
        const record = await this.store.create(input, this.limits.maxTasksPerClient, this.budget, { startsAtOnce });
        options.onCreated?.(record.taskId);
        const run = new TaskRun(this, record, parent, true, options.onProgress);
        run.askNoClient = options.askNoClient === true;
        this.runs.set(record.taskId, run);
        // A tool's own window (a command's maxUnpolledMs) applies in the background too.
        const watchStopped = this.watchesStopped && !options.background && !options.capabilities2026;
        const stoppedMs = watchStopped ? STOPPED_AFTER_POLLS * this.limits.pollIntervalMs : 0;
        let unpolledMs = tool.maxUnpolledMs ?? (options.background ? 0 : (this.limits.abandonAfterMs ?? 0));
        if (watchStopped && this.limits.stoppedWaiting === 'cancel') {
            // Ended as an abandoned task, after more missed polls than the mark takes.
            unpolledMs = Math.min(unpolledMs || Infinity, STOPPED_CANCEL_POLLS * this.limits.pollIntervalMs);
        }
        if ((unpolledMs > 0 || stoppedMs > 0) && !parent && !client.isOwner) {
            (this.abandon ??= this.abandonWatch()).watch(record.taskId, unpolledMs, stoppedMs);
        }
        if (options.capabilities2026) {
            this.inputs.adopt(record.taskId, options.capabilities2026, record.ttl);
        }
        run.start(tool, args);
        // What a client is told of must survive a crash: the answer waits for the write (stores that
        // keep no file have none to wait for, and no turn is spent on it).
        const written = this.store.written?.(record.taskId);
        if (written) {
            await written;
            // Its work ran meanwhile: the answer says where the task is now. The creation's record
            // would undo, at a client that applies it, a status it was already told of (input_required).
            return (await this.store.get(record.taskId)) ?? record;
        }
        return record;
    }

    /**
     * Runs `work` for a task a server that is gone left running, whose work goes on without it (a
     * command this server re-adopts: adopt.ts); its end is then recorded here, as for a task started here.
     */
    resume(record: TaskRecord, work: NonNullable<ToolDefinition['run']>): void {
        const run = new TaskRun(this, record, undefined, true);
        this.runs.set(record.taskId, run);
        run.start({ run: work }, record.args);
    }

    /** A task the caller may see; the same -32602 for unknown, expired and foreign ids. */
    async get(client: ClientIdentity, taskId: string): Promise<TaskRecord> {
        let record = await this.visible(client, taskId);
        this.followedBy(client, record);
        if (record.externalRef && !isTerminal(record.status)) {
            record = (await this.runFor(record).external?.sync()) ?? record;
        }
        return record;
    }

    /**
     * The task's own client follows it on a stream (a 2026-07-28 `subscriptions/listen` naming it):
     * like a waiting tasks/result, that keeps it from being abandoned until the returned function runs.
     */
    follow(client: ClientIdentity, record: TaskRecord): () => void {
        return !isTerminal(record.status) && record.clientKey === client.clientKey && !client.isOwner ? (this.abandon?.waiting(record.taskId) ?? noop) : noop;
    }

    /** Waits (on events, not by polling) until the task is terminal, then returns its outcome. */
    async result(client: ClientIdentity, taskId: string, signal?: AbortSignal): Promise<{ task: TaskRecord; outcome: TaskOutcome }> {
        let record = await this.get(client, taskId);
        const endWait = !isTerminal(record.status) && record.clientKey === client.clientKey ? this.abandon?.waiting(taskId) : undefined;
        try {
            while (!isTerminal(record.status)) {
                await this.waitForChange(record, signal);
                record = await this.rereadWaiting(client, record, signal);
            }
        } finally {
            endWait?.();
        }
        const lost = this.lost.get(taskId);
        const missing = lost ? lostMessage(lost.toolName) : `Task ${taskId} ended (${record.status}) without a stored result`;
        const outcome = (this.lostViews.has(record) ? undefined : await this.store.getOutcome(taskId)) ?? { result: textResult(missing, true) };
        return { task: record, outcome };
    }

    async list(client: ClientIdentity, cursor?: string, parentTaskId?: string): Promise<TaskPage> {
        if (client.anonymous) {
            // The one place that keeps anonymous callers from each other's task ids.
            throw new RpcError(
                ErrorCodes.InvalidRequest,
                'Listing tasks needs a caller of its own: this server runs without --token, so every caller over HTTP is the same anonymous one, and a task is reached only by its id. Keep the task id you were given (or start the server with --token).',
            );
        }
        return this.store.list({ clientKey: client.isOwner ? undefined : client.clientKey, parentTaskId, cursor, limit: LIST_PAGE_SIZE });
    }

    async cancel(client: ClientIdentity, taskId: string): Promise<TaskRecord> {
        const record = await this.visible(client, taskId);
        if (isTerminal(record.status)) {
            throw invalidParams(`Task ${taskId} is already ${record.status} and cannot be cancelled`);
        }
        const byOwner = client.isOwner && client.clientKey !== record.clientKey;
        const message = byOwner ? 'Cancelled from the MCP Tasks sidebar' : 'Cancelled by the client';
        // The client that cancels its own task knows why it ended: no progress note repeats it.
        const finished = await this.runFor(record).stop('cancelled', cancelledOutcome(message), message, byOwner);
        if (!finished) {
            const now = await this.store.get(taskId);
            throw invalidParams(now ? `Task ${taskId} is already ${now.status} and cannot be cancelled` : `Task not found: ${taskId}`);
        }
        return finished;
    }

    /** Stops accepting work and cancels what runs here, each with a status message saying why. */
    async shutdown(reason = 'Server shutting down'): Promise<void> {
        this.closing = true;
        this.abandon?.stop();
        // Work that can go on without this process (kept commands) is let go, for the next server to re-adopt.
        const detached = [...this.runs.values()].filter(run => run.detach !== undefined && !run.parent);
        for (const run of detached) {
            this.forget(run);
        }
        await Promise.all(detached.map(run => run.detach!().catch(err => this.log.warn(`[tasks] letting ${run.taskId} go on failed: ${errorMessage(err)}`))));
        await this.cancelRoots(() => true, reason);
    }

    /** Cancels the live tasks of a client that is gone for good (its session closed). */
    async cancelClientTasks(clientKey: string, reason: string): Promise<void> {
        await this.cancelRoots(run => run.record.clientKey === clientKey, reason);
    }

    /**
     * Stops what still runs here (nothing after shutdown, unless a task started meanwhile), each
     * through TaskRun.stop with its end recorded while the store still takes writes.
     */
    dispose(reason = 'Runtime disposed'): void {
        this.closing = true;
        this.subscription.dispose();
        for (const run of [...this.runs.values()]) {
            run.stop('cancelled', { result: textResult(`Task cancelled: ${reason}`, true) }, reason).then(undefined, err => this.log.warn(`[tasks] stopping ${run.taskId} on dispose failed: ${errorMessage(err)}`));
        }
        this.runs.clear();
        this.inputs.dispose();
        this.abandon?.stop();
    }

    runOf(taskId: string): TaskRun | undefined {
        return this.runs.get(taskId);
    }

    forget(run: TaskRun): void {
        this.runs.delete(run.taskId);
        this.abandon?.forget(run.taskId);
        this.inputs.release(run.taskId);
    }

    /** The run of a task: the one running here, or one for stopping it from here. */
    private runFor(record: TaskRecord): TaskRun {
        return this.runs.get(record.taskId) ?? TaskRun.elsewhere(this, record);
    }

    /** Runs whose parent does not run here: cancelling these reaches the rest by cascade, each child naming its parent. */
    private async cancelRoots(include: (run: TaskRun) => boolean, reason: string): Promise<void> {
        const roots = [...this.runs.values()].filter(run => include(run) && !(run.parent && this.runs.has(run.parent.taskId)));
        await Promise.all(roots.map(run => run.stop('cancelled', { result: textResult(`Task cancelled: ${reason}`, true) }, reason)));
    }

    /** A poll by the task's own client keeps it followed; the owner's view does not. */
    private followedBy(client: ClientIdentity, record: TaskRecord): void {
        if (this.abandon && record.clientKey === client.clientKey && !client.isOwner) {
            this.abandon.seen(record.taskId);
        }
    }

    /** When the task's own client stopped waiting for it (ISO time), while it runs and that is so. */
    stoppedWaitingAt(taskId: string): string | undefined {
        const at = this.abandon?.stoppedAt(taskId);
        return at === undefined ? undefined : new Date(at).toISOString();
    }

    private get watchesStopped(): boolean {
        return (this.limits.stoppedWaiting ?? 'off') !== 'off';
    }

    private abandonWatch(): AbandonWatch {
        return new AbandonWatch(
            this.limits.abandonAfterMs ?? 0,
            this.clock,
            (taskId, afterMs) => this.abandoned(taskId, afterMs),
            (taskId, stopped) => this.stoppedWaiting(taskId, stopped),
        );
    }

    /**
     * The task's client stopped polling it (or came back): the owner's view is told
     * (TaskInfo.stoppedWaitingAt). What ends it is the abandonment window (short with `cancel`).
     */
    private stoppedWaiting(taskId: string, stopped: boolean): void {
        const run = this.runs.get(taskId);
        if (!run) {
            return;
        }
        if (stopped) {
            this.log.info(`[tasks] ${taskId} (${run.record.toolName}): its client stopped waiting for it (${this.limits.stoppedWaiting === 'cancel' ? 'cancelled unless it polls again soon' : 'it keeps running'})`);
        }
        this.store.get(taskId).then(
            record => {
                if (record && !isTerminal(record.status)) {
                    notifyOwners(this.hub, this.ownerFacts, record);
                }
            },
            err => this.log.warn(`[tasks] reading ${taskId} failed: ${errorMessage(err)}`),
        );
    }

    /** Nobody followed the task for its window: it is cancelled, saying so. */
    private abandoned(taskId: string, afterMs: number): void {
        const run = this.runs.get(taskId);
        if (!run) {
            return;
        }
        const seconds = afterMs / 1000;
        const asked = run.record.background ? 'get_task, read_output, tasks/get or tasks/result' : 'tasks/get or tasks/result';
        const message = `Cancelled: the client that started this task stopped following it (no ${asked} for ${seconds} s)`;
        this.log.info(`[tasks] ${taskId} (${run.record.toolName}) ${message}`);
        run.stop('cancelled', cancelledOutcome(message), message).then(undefined, err => this.log.warn(`[tasks] cancelling abandoned ${taskId} failed: ${errorMessage(err)}`));
    }

    private async visible(client: ClientIdentity, taskId: string): Promise<TaskRecord> {
        const record = await this.store.get(taskId);
        if (record && (client.isOwner || mayRead(client.clientKey, record.clientKey))) {
            return record;
        }
        // A task the crash took: unknown here (memory), or kept by the durable store but bound to the
        // old session, which the client waiting on it (VS Code's, reconnected) no longer is. Either
        // way it reads as lost, in words, and nothing of the stored task (its result) is shown.
        const lost = this.lost.get(taskId);
        if (lost) {
            const view = lostRecord(lost, client.clientKey, new Date(this.clock.now()));
            this.lostViews.add(view);
            return view;
        }
        throw invalidParams(`Task not found: ${taskId}`);
    }

    /**
     * The waited-on task read again. A shared store that became unreachable while the caller
     * waited does not end the wait: it goes on until the store is back (the caller's first read
     * already answered -32001 if the store was down when it asked).
     */
    private async rereadWaiting(client: ClientIdentity, record: TaskRecord, signal?: AbortSignal): Promise<TaskRecord> {
        for (;;) {
            try {
                return await this.visible(client, record.taskId);
            } catch (err) {
                if (!(err instanceof RpcError && err.code === ErrorCodes.StoreUnavailable)) {
                    throw err;
                }
            }
            await this.waiters.untilStoreBack(record.taskId, this.clock, STORE_RETRY_MS, signal);
        }
    }

    private waitForChange(record: TaskRecord, signal?: AbortSignal): Promise<void> {
        // An external system without push is asked at the task's poll interval while someone waits.
        const job = record.externalRef ? this.runFor(record).external : undefined;
        return this.waiters.next(record, signal, job && !job.pushes ? () => job.poll(record.pollInterval) : undefined);
    }

    private onStoreEvent(event: TaskEvent): void {
        switch (event.type) {
            case 'status': {
                const { task } = event;
                if (isTerminal(task.status)) {
                    this.endedElsewhere(task.taskId, task.status, task.statusMessage);
                }
                this.waiters.wake(task.taskId);
                notifyStatus(this.hub, this.ownerFacts, task, event.created === true);
                break;
            }
            case 'deleted':
                this.endedElsewhere(event.taskId, 'expired');
                this.waiters.wake(event.taskId);
                break;
            case 'resync':
                // Events may have been missed (a shared store reconnected): every waiter re-reads,
                // and runs whose task ended elsewhere meanwhile stop.
                for (const taskId of this.waiters.taskIds) {
                    this.waiters.wake(taskId);
                }
                void this.recheckRuns();
                break;
            case 'progress':
                notifyProgress(this.hub, event);
                break;
            case 'input':
                // TaskInputRequests listens for these itself.
                break;
        }
    }

    /**
     * A task running here ended without its run deciding it (another replica's cancel, expiry): its
     * run stops, releasing what it holds. A run that stops itself leaves the map first, so the event
     * of its own write finds nothing here.
     */
    private endedElsewhere(taskId: string, status: StopStatus, message?: string): void {
        const run = this.runs.get(taskId);
        if (run) {
            run.stop(status, undefined, message).then(undefined, err => this.log.warn(`[tasks] stopping ${taskId} failed: ${errorMessage(err)}`));
        }
    }

    private async recheckRuns(): Promise<void> {
        for (const taskId of [...this.runs.keys()]) {
            const now = await this.store.get(taskId).catch(() => null);
            if (now === undefined) {
                this.endedElsewhere(taskId, 'expired');
            } else if (now && isTerminal(now.status)) {
                this.endedElsewhere(taskId, now.status, now.statusMessage);
            }
        }
    }
}

function noop(): void {}
