import { ErrorCodes, RpcError } from '../rpc/errors.js';
import { systemClock, type Clock } from '../util/clock.js';
import { textResult } from '../tools/types.js';
import { MemoryTaskStore } from './memoryStore.js';
import { ADOPTED_STDIO_KEY, taskRecord } from './records.js';
import type { SqliteDatabase } from './sqlite.js';
import { TaskJournal } from './taskJournal.js';
import {
    isTerminal,
    type Disposable,
    type CreateOptions,
    type ListQuery,
    type LiveStatus,
    type NewTask,
    type ProgressUpdate,
    type RetentionBudget,
    type TaskEvent,
    type TaskOutcome,
    type TaskPage,
    type TaskRecord,
    type TaskStore,
    type TerminalStatus,
} from './types.js';

/** What the store says it did at start, for the log. */
export interface DurableStart {
    /** Finished tasks found again, readable until their TTL. */
    kept: number;
    /** Tasks that were running in a server that is gone, now failed with words. */
    failed: number;
    /** The worker ids they came from. */
    from: string[];
    /** Running tasks whose work outlives its process (keepRunning), taken over still running: the caller resumes them. */
    resumed: TaskRecord[];
}

export interface DurableStoreOptions {
    dir: string;
    workerId: string;
    clock?: Clock;
    /** Told when changes could not be written to the file (they stay in memory only). */
    onWriteError?: (err: unknown, changes: number) => void;
    /**
     * Whether a running task of a server that is gone goes on running here (a command that outlived
     * its server, for this one to re-adopt); otherwise it ends failed, saying the server restarted.
     */
    keepRunning?: (record: TaskRecord) => boolean;
}

/**
 * The embedded durable store: the memory store's indexes and events, with every change written
 * through to a SQLite file in the data folder (taskJournal.ts: the changes of one turn of the event
 * loop written together; what a crash can lose is said there), so a finished task's status and
 * result outlive the process until their TTL. Reads never touch the file. At start, the tasks of
 * servers that are gone are taken over: finished ones come back as they were; running ones, whose
 * work lived in the dead process, end `failed` saying so.
 */
export class DurableTaskStore implements TaskStore {
    private readonly memory: MemoryTaskStore;
    private readonly clock: Clock;
    private readonly deletions: Disposable;

    private constructor(
        private readonly journal: TaskJournal,
        clock: Clock,
    ) {
        this.clock = clock;
        this.memory = new MemoryTaskStore({ clock });
        // Expiry and the orphan budget happen in the memory store: the file follows its deletions.
        this.deletions = this.memory.onEvent(event => {
            if (event.type === 'deleted') {
                this.journal.deleted(event.taskId);
            }
        });
    }

    get workerId(): string {
        return this.journal.workerId;
    }

    /** Where the file is. */
    get path(): string {
        return this.journal.path;
    }

    static open(DatabaseSync: new (path: string) => SqliteDatabase, options: DurableStoreOptions): { store: DurableTaskStore; start: DurableStart } {
        const clock = options.clock ?? systemClock;
        const journal = TaskJournal.open(DatabaseSync, options.dir, options.workerId, options.onWriteError);
        const store = new DurableTaskStore(journal, clock);
        try {
            return { store, start: store.takeOver(options.keepRunning ?? (() => false)) };
        } catch (err) {
            journal.close();
            throw err;
        }
    }

    private takeOver(keepRunning: (record: TaskRecord) => boolean): DurableStart {
        const now = this.clock.now();
        const { tasks, from } = this.journal.adopt(now);
        let failed = 0;
        const resumed: TaskRecord[] = [];
        for (const kept of tasks) {
            let { record, outcome, expiresAt } = kept;
            const adoptedKey = record.clientKey.startsWith('stdio:') ? ADOPTED_STDIO_KEY : record.clientKey;
            if (!isTerminal(record.status) && keepRunning(record)) {
                record = taskRecord({ ...record, clientKey: adoptedKey, worker: this.workerId }, 'working', record.statusMessage, new Date(now).toISOString(), record.externalRef, record.seq);
                this.journal.changed(record, expiresAt);
                resumed.push(record);
            } else if (!isTerminal(record.status)) {
                const message = `The server restarted: this task's work ran in the previous server process, which ended before it finished. Call ${record.toolName} again to do it again`;
                outcome = JSON.stringify({ result: textResult(message, true) } satisfies TaskOutcome);
                record = taskRecord({ ...record, clientKey: adoptedKey, worker: this.workerId }, 'failed', message, new Date(now).toISOString(), record.externalRef, record.seq);
                expiresAt = now + record.ttl;
                this.journal.changed(record, expiresAt, outcome);
                failed++;
            } else if (adoptedKey !== record.clientKey || record.worker !== this.workerId) {
                record = taskRecord({ ...record, clientKey: adoptedKey, worker: this.workerId }, record.status, record.statusMessage, record.lastUpdatedAt, record.externalRef, record.seq);
                this.journal.changed(record, expiresAt);
            }
            this.memory.restore(record, outcome, expiresAt - now);
        }
        this.journal.flush();
        return { kept: tasks.length - failed - resumed.length, failed, from, resumed };
    }

    async create(input: NewTask, maxLive: number, budget?: RetentionBudget, options?: CreateOptions): Promise<TaskRecord> {
        const record = await this.memory.create(input, maxLive, budget);
        const saved = this.journal.created(record, this.clock.now() + record.ttl);
        if (options?.startsAtOnce) {
            // Its work starts now and its caller awaits `written` before telling anyone of it; a write
            // that fails leaves it in memory only (onWriteError says so), as any other change.
            return record;
        }
        try {
            // Answered only once it is in the file: a task a client was told about must survive a crash.
            await saved;
        } catch (err) {
            // Memory and file stay one: a task the file has not got is not kept either.
            this.memory.discard(record.taskId);
            throw new RpcError(ErrorCodes.InternalError, `Could not save the task to ${this.journal.path} (${err instanceof Error ? err.message : String(err)}), so it was not started; call the tool again later`);
        }
        return record;
    }

    written(taskId: string): Promise<void> | undefined {
        return this.journal.written(taskId);
    }

    get(taskId: string): Promise<TaskRecord | undefined> {
        // Reads answer from memory, but never ahead of the file (taskJournal.ts); the hot path, so no await when nothing waits.
        const written = this.journal.written(taskId);
        return written ? written.then(() => this.memory.get(taskId)) : this.memory.get(taskId);
    }

    async setStatus(taskId: string, status: LiveStatus, statusMessage?: string, quiet?: boolean): Promise<TaskRecord | undefined> {
        const record = await this.memory.setStatus(taskId, status, statusMessage, quiet);
        if (record) {
            this.journal.changed(record, Date.parse(record.createdAt) + record.ttl);
        }
        return record;
    }

    async finish(taskId: string, status: TerminalStatus, outcome: TaskOutcome, statusMessage?: string): Promise<TaskRecord | undefined> {
        const record = await this.memory.finish(taskId, status, outcome, statusMessage);
        if (record) {
            // Retention restarts at the terminal transition, as in memory.
            this.journal.changed(record, this.clock.now() + record.ttl, this.memory.outcomeJson(taskId));
        }
        return record;
    }

    async setExternalRef(taskId: string, ref: string): Promise<void> {
        await this.memory.setExternalRef(taskId, ref);
        const record = await this.memory.get(taskId);
        if (record) {
            this.journal.changed(record, Date.parse(record.createdAt) + record.ttl);
        }
    }

    async getOutcome(taskId: string): Promise<TaskOutcome | undefined> {
        await this.journal.written(taskId);
        return this.memory.getOutcome(taskId);
    }

    async list(query: ListQuery): Promise<TaskPage> {
        await this.journal.written();
        return this.memory.list(query);
    }

    publishProgress(task: TaskRecord, update: ProgressUpdate): void {
        this.memory.publishProgress(task, update);
    }

    onEvent(listener: (event: TaskEvent) => void): Disposable {
        return this.memory.onEvent(listener);
    }

    orphan(clientKey: string, budget: RetentionBudget): void {
        this.memory.orphan(clientKey, budget);
    }

    async close(): Promise<void> {
        this.deletions.dispose();
        await this.memory.close();
        this.journal.close();
    }
}
