import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { newTaskId } from './ids.js';
import {
    isTerminal,
    type Disposable,
    type ListQuery,
    type LiveStatus,
    type NewTask,
    type ProgressUpdate,
    type TaskEvent,
    type TaskOutcome,
    type TaskPage,
    type TaskRecord,
    type TaskStore,
    type TerminalStatus,
} from './types.js';

let isoMs = NaN;
let isoText = '';

/** The current time as ISO 8601; formatted once per millisecond, however many tasks change in it. */
function isoNow(): string {
    const ms = Date.now();
    if (ms !== isoMs) {
        isoMs = ms;
        isoText = new Date(ms).toISOString();
    }
    return isoText;
}

interface Entry {
    record: TaskRecord;
    outcome?: TaskOutcome;
    /** When retention ends (performance.now() clock); a queued deadline that differs is stale. */
    expiresAt: number;
}

/**
 * The embedded default store. Indexed by client and by parent so listing one client's tasks
 * never scans another's; retention deadlines wait in one queue behind a single unref'd timer
 * (a Node timer per task would cost some 200 bytes each).
 */
export class MemoryTaskStore implements TaskStore {
    private readonly entries = new Map<string, Entry>();
    private readonly byClient = new Map<string, Map<string, Entry>>();
    private readonly byParent = new Map<string, Map<string, Entry>>();
    private readonly live = new Map<string, number>();
    private readonly events = new EventEmitter();
    private readonly expiries = new ExpiryQueue((taskId, at) => {
        if (this.entries.get(taskId)?.expiresAt === at) {
            this.expire(taskId);
        }
    });
    private seq = 0;

    constructor() {
        this.events.setMaxListeners(0);
    }

    get size(): number {
        return this.entries.size;
    }

    async create(input: NewTask, maxLive: number): Promise<TaskRecord> {
        const liveNow = this.live.get(input.clientKey) ?? 0;
        if (liveNow >= maxLive) {
            throw new RpcError(ErrorCodes.LimitExceeded, `Too many live tasks for this client (limit ${maxLive}); wait for some to finish or cancel them`, { limit: maxLive });
        }
        const now = isoNow();
        const record: TaskRecord = {
            taskId: newTaskId(),
            status: 'working',
            createdAt: now,
            lastUpdatedAt: now,
            ttl: input.ttl,
            pollInterval: input.pollInterval,
            clientKey: input.clientKey,
            clientName: input.clientName,
            toolName: input.toolName,
            args: input.args,
            parentTaskId: input.parentTaskId,
            progressToken: input.progressToken,
            worker: input.worker,
            seq: ++this.seq,
        };
        const entry: Entry = { record, expiresAt: this.expiries.add(record.taskId, record.ttl) };
        this.entries.set(record.taskId, entry);
        indexAdd(this.byClient, record.clientKey, entry);
        if (record.parentTaskId) {
            indexAdd(this.byParent, record.parentTaskId, entry);
        }
        this.live.set(record.clientKey, liveNow + 1);
        this.emit({ type: 'status', task: record, created: true });
        return record;
    }

    async get(taskId: string): Promise<TaskRecord | undefined> {
        return this.entries.get(taskId)?.record;
    }

    async setStatus(taskId: string, status: LiveStatus, statusMessage?: string): Promise<TaskRecord | undefined> {
        const entry = this.entries.get(taskId);
        if (!entry || isTerminal(entry.record.status)) {
            return undefined;
        }
        entry.record = { ...entry.record, status, statusMessage, lastUpdatedAt: isoNow() };
        this.emit({ type: 'status', task: entry.record });
        return entry.record;
    }

    async finish(taskId: string, status: TerminalStatus, outcome: TaskOutcome, statusMessage?: string): Promise<TaskRecord | undefined> {
        const entry = this.entries.get(taskId);
        if (!entry || isTerminal(entry.record.status)) {
            return undefined;
        }
        entry.record = { ...entry.record, status, statusMessage, lastUpdatedAt: isoNow() };
        entry.outcome = outcome;
        entry.expiresAt = this.expiries.add(taskId, entry.record.ttl);
        const key = entry.record.clientKey;
        this.live.set(key, (this.live.get(key) ?? 1) - 1);
        this.emit({ type: 'status', task: entry.record });
        return entry.record;
    }

    async setExternalRef(taskId: string, ref: string): Promise<void> {
        const entry = this.entries.get(taskId);
        if (entry) {
            entry.record = { ...entry.record, externalRef: ref };
        }
    }

    async getOutcome(taskId: string): Promise<TaskOutcome | undefined> {
        return this.entries.get(taskId)?.outcome;
    }

    async list(query: ListQuery): Promise<TaskPage> {
        const after = query.cursor === undefined ? 0 : decodeCursor(query.cursor);
        const source = query.parentTaskId !== undefined ? this.byParent.get(query.parentTaskId) : query.clientKey !== undefined ? this.byClient.get(query.clientKey) : this.entries;
        const tasks: TaskRecord[] = [];
        let more = false;
        for (const entry of source?.values() ?? []) {
            const record = entry.record;
            if (record.seq <= after || (query.clientKey !== undefined && record.clientKey !== query.clientKey)) {
                continue;
            }
            if (tasks.length === query.limit) {
                more = true;
                break;
            }
            tasks.push(record);
        }
        const last = tasks[tasks.length - 1];
        return more && last ? { tasks, nextCursor: encodeCursor(last.seq) } : { tasks };
    }

    publishProgress(task: TaskRecord, update: ProgressUpdate): void {
        this.emit({ type: 'progress', taskId: task.taskId, clientKey: task.clientKey, progressToken: task.progressToken, update });
    }

    onEvent(listener: (event: TaskEvent) => void): Disposable {
        this.events.on('event', listener);
        return { dispose: () => this.events.off('event', listener) };
    }

    async close(): Promise<void> {
        this.expiries.clear();
        this.entries.clear();
        this.byClient.clear();
        this.byParent.clear();
        this.live.clear();
    }

    private expire(taskId: string): void {
        const entry = this.entries.get(taskId);
        if (!entry) {
            return;
        }
        const { clientKey, parentTaskId, status } = entry.record;
        this.entries.delete(taskId);
        indexDelete(this.byClient, clientKey, taskId);
        if (parentTaskId) {
            indexDelete(this.byParent, parentTaskId, taskId);
        }
        if (!isTerminal(status)) {
            this.live.set(clientKey, (this.live.get(clientKey) ?? 1) - 1);
        }
        if ((this.live.get(clientKey) ?? 0) <= 0 && !this.byClient.has(clientKey)) {
            this.live.delete(clientKey);
        }
        this.emit({ type: 'deleted', taskId, clientKey });
    }

    private emit(event: TaskEvent): void {
        this.events.emit('event', event);
    }
}

function indexAdd(index: Map<string, Map<string, Entry>>, key: string, entry: Entry): void {
    let bucket = index.get(key);
    if (!bucket) {
        bucket = new Map();
        index.set(key, bucket);
    }
    bucket.set(entry.record.taskId, entry);
}

function indexDelete(index: Map<string, Map<string, Entry>>, key: string, taskId: string): void {
    const bucket = index.get(key);
    if (bucket) {
        bucket.delete(taskId);
        if (bucket.size === 0) {
            index.delete(key);
        }
    }
}

/** Longest delay a Node timer takes as given (about 24.8 days); a later deadline re-arms on the way. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Deadline {
    at: number;
    order: number;
    taskId: string;
}

/**
 * Deadlines in a binary min-heap (earliest first; equal deadlines in the order they were added)
 * behind one unref'd timer set for the earliest. A deadline that was replaced stays queued until
 * its time and is then ignored by the caller.
 */
class ExpiryQueue {
    private readonly heap: Deadline[] = [];
    private timer?: NodeJS.Timeout;
    private timerAt = Infinity;
    private order = 0;

    constructor(private readonly onDue: (taskId: string, at: number) => void) {}

    /** Queues `taskId` to fall due `ttl` ms from now; returns the deadline. */
    add(taskId: string, ttl: number): number {
        const at = performance.now() + ttl;
        const heap = this.heap;
        const item: Deadline = { at, order: this.order++, taskId };
        let i = heap.push(item) - 1;
        while (i > 0) {
            const parent = (i - 1) >> 1;
            if (!before(item, heap[parent]!)) {
                break;
            }
            heap[i] = heap[parent]!;
            i = parent;
        }
        heap[i] = item;
        if (at < this.timerAt) {
            this.arm();
        }
        return at;
    }

    clear(): void {
        clearTimeout(this.timer);
        this.timer = undefined;
        this.timerAt = Infinity;
        this.heap.length = 0;
    }

    private arm(): void {
        clearTimeout(this.timer);
        const first = this.heap[0];
        if (!first) {
            this.timer = undefined;
            this.timerAt = Infinity;
            return;
        }
        this.timerAt = first.at;
        this.timer = setTimeout(this.fire, Math.min(Math.max(first.at - performance.now(), 0), MAX_TIMER_MS));
        this.timer.unref();
    }

    private readonly fire = (): void => {
        this.timer = undefined;
        this.timerAt = Infinity;
        const now = performance.now();
        while (this.heap.length > 0 && this.heap[0]!.at <= now) {
            const due = this.pop();
            this.onDue(due.taskId, due.at);
        }
        if (this.timer === undefined) {
            this.arm();
        }
    };

    private pop(): Deadline {
        const heap = this.heap;
        const top = heap[0]!;
        const last = heap.pop()!;
        if (heap.length > 0) {
            let i = 0;
            for (;;) {
                const left = 2 * i + 1;
                if (left >= heap.length) {
                    break;
                }
                const right = left + 1;
                const child = right < heap.length && before(heap[right]!, heap[left]!) ? right : left;
                if (!before(heap[child]!, last)) {
                    break;
                }
                heap[i] = heap[child]!;
                i = child;
            }
            heap[i] = last;
        }
        return top;
    }
}

function before(a: Deadline, b: Deadline): boolean {
    return a.at < b.at || (a.at === b.at && a.order < b.order);
}
