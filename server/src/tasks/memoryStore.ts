import { EventEmitter } from 'node:events';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import { systemClock, type Clock, type ClockTimer } from '../util/clock.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { newTaskId } from './ids.js';
import { recordBase, taskRecord } from './records.js';
import { retainedSize, retentionError } from './retention.js';
import {
    isTerminal,
    type Disposable,
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

let isoMs = NaN;
let isoText = '';

/** A time as ISO 8601; formatted once per millisecond, however many tasks change in it. */
function isoAt(ms: number): string {
    if (ms !== isoMs) {
        isoMs = ms;
        isoText = new Date(ms).toISOString();
    }
    return isoText;
}

interface Entry extends Deadline {
    record: TaskRecord;
    /**
     * The outcome as JSON: one flat string per finished task instead of a graph of objects, which
     * the garbage collector would copy and trace for as long as the task is retained (most of the
     * collector's work when thousands of results are held). Measured for the budget on the way.
     */
    outcome?: string;
    /** What the entry holds, in characters of JSON (arguments, progress token, outcome): its share of the retention budget. */
    bytes: number;
}


/**
 * The embedded default store. Indexed by client and by parent so listing one client's tasks
 * never scans another's; retention deadlines wait in one queue behind a single unref'd timer
 * (a Node timer per task would cost some 200 bytes each), each entry being its own queue item.
 */
export class MemoryTaskStore implements TaskStore {
    private readonly entries = new Map<string, Entry>();
    private readonly byClient = new Map<string, Map<string, Entry>>();
    private readonly byParent = new Map<string, Map<string, Entry>>();
    private readonly live = new Map<string, number>();
    /** Outcomes read lately, parsed: a client polling tasks/get (which carries the result) parses each once. */
    private readonly parsed = new ParsedOutcomes();
    /** Bytes each client's tasks hold (see Entry.bytes). */
    private readonly held = new Map<string, number>();
    /** Tasks of clients that are gone, oldest first, and what they hold together. */
    private readonly orphans = new Map<string, Entry>();
    private orphanBytes = 0;
    private readonly events = new EventEmitter();
    private readonly clock: Clock;
    private readonly expiries: ExpiryQueue<Entry>;
    private seq = 0;

    constructor(options: { clock?: Clock } = {}) {
        this.clock = options.clock ?? systemClock;
        this.expiries = new ExpiryQueue<Entry>(this.clock, entry => this.expire(entry.record.taskId));
        this.events.setMaxListeners(0);
    }

    get size(): number {
        return this.entries.size;
    }

    async create(input: NewTask, maxLive: number, budget?: RetentionBudget): Promise<TaskRecord> {
        const liveNow = this.live.get(input.clientKey) ?? 0;
        if (liveNow >= maxLive) {
            throw new RpcError(ErrorCodes.LimitExceeded, `Too many live tasks for this client (limit ${maxLive}); wait for some to finish or cancel them`, { limit: maxLive });
        }
        const bytes = retainedSize(input);
        const heldNow = this.held.get(input.clientKey) ?? 0;
        if (budget) {
            if ((this.byClient.get(input.clientKey)?.size ?? 0) >= budget.maxTasks) {
                throw retentionError('tasks', budget.maxTasks);
            }
            if (heldNow + bytes > budget.maxBytes) {
                throw retentionError('bytes', budget.maxBytes);
            }
        }
        this.held.set(input.clientKey, heldNow + bytes);
        const now = isoAt(this.clock.now());
        const record = taskRecord(recordBase(input, newTaskId(), now), 'working', undefined, now, undefined, ++this.seq);
        const entry: Entry = { record, outcome: undefined, at: 0, order: 0, slot: -1, bytes };
        this.expiries.schedule(entry, record.ttl);
        this.entries.set(record.taskId, entry);
        indexAdd(this.byClient, record.clientKey, entry);
        if (record.parentTaskId) {
            indexAdd(this.byParent, record.parentTaskId, entry);
        }
        this.live.set(record.clientKey, liveNow + 1);
        this.emit({ type: 'status', task: record, created: true });
        return record;
    }

    /**
     * Puts back a task kept by a durable store (durableStore.ts), as it was, with `remainingMs` of
     * its retention left; a live one counts against its client's live limit as any other. No event:
     * nothing changed for anyone listening.
     */
    restore(record: TaskRecord, outcomeJson: string | undefined, remainingMs: number): void {
        const bytes = retainedSize(record) + (outcomeJson?.length ?? 0);
        const entry: Entry = { record, outcome: outcomeJson, at: 0, order: 0, slot: -1, bytes };
        this.expiries.schedule(entry, Math.max(0, remainingMs));
        this.entries.set(record.taskId, entry);
        indexAdd(this.byClient, record.clientKey, entry);
        if (record.parentTaskId) {
            indexAdd(this.byParent, record.parentTaskId, entry);
        }
        this.held.set(record.clientKey, (this.held.get(record.clientKey) ?? 0) + bytes);
        if (!isTerminal(record.status)) {
            this.live.set(record.clientKey, (this.live.get(record.clientKey) ?? 0) + 1);
        }
        this.seq = Math.max(this.seq, record.seq);
    }

    async get(taskId: string): Promise<TaskRecord | undefined> {
        return this.entries.get(taskId)?.record;
    }

    /** The outcome of an ended task as kept (JSON), for a durable store to write as it is. */
    outcomeJson(taskId: string): string | undefined {
        return this.entries.get(taskId)?.outcome;
    }

    /** Removes a task at once, as its expiry would: a durable store's undoing of a creation it could not write. */
    discard(taskId: string): void {
        this.expire(taskId);
    }

    async setStatus(taskId: string, status: LiveStatus, statusMessage?: string, quiet?: boolean): Promise<TaskRecord | undefined> {
        const entry = this.entries.get(taskId);
        if (!entry || isTerminal(entry.record.status)) {
            return undefined;
        }
        const was = entry.record;
        entry.record = taskRecord(was, status, statusMessage, isoAt(this.clock.now()), was.externalRef, was.seq);
        if (!quiet) {
            this.emit({ type: 'status', task: entry.record });
        }
        return entry.record;
    }

    async finish(taskId: string, status: TerminalStatus, outcome: TaskOutcome, statusMessage?: string): Promise<TaskRecord | undefined> {
        const entry = this.entries.get(taskId);
        if (!entry || isTerminal(entry.record.status)) {
            return undefined;
        }
        // Encoded before anything changes: an outcome JSON cannot hold (a BigInt) leaves the task as it was.
        const outcomeJson = JSON.stringify(outcome);
        const was = entry.record;
        entry.record = taskRecord(was, status, statusMessage, isoAt(this.clock.now()), was.externalRef, was.seq);
        entry.outcome = outcomeJson;
        this.expiries.schedule(entry, entry.record.ttl);
        const key = entry.record.clientKey;
        this.live.set(key, (this.live.get(key) ?? 1) - 1);
        // The outcome is kept whatever its size (losing a result is worse); the next create pays for it.
        const outcomeBytes = outcomeJson.length;
        entry.bytes += outcomeBytes;
        this.held.set(key, (this.held.get(key) ?? 0) + outcomeBytes);
        this.emit({ type: 'status', task: entry.record });
        return entry.record;
    }

    async setExternalRef(taskId: string, ref: string): Promise<void> {
        const entry = this.entries.get(taskId);
        if (entry) {
            const was = entry.record;
            entry.record = taskRecord(was, was.status, was.statusMessage, was.lastUpdatedAt, ref, was.seq);
        }
    }

    async getOutcome(taskId: string): Promise<TaskOutcome | undefined> {
        const json = this.entries.get(taskId)?.outcome;
        return json === undefined ? undefined : this.parsed.get(json);
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

    orphan(clientKey: string, budget: RetentionBudget): void {
        for (const entry of this.byClient.get(clientKey)?.values() ?? []) {
            if (!this.orphans.has(entry.record.taskId)) {
                this.orphans.set(entry.record.taskId, entry);
                this.orphanBytes += entry.bytes;
            }
        }
        for (const [taskId] of this.orphans) {
            if (this.orphans.size <= budget.maxTasks && this.orphanBytes <= budget.maxBytes) {
                break;
            }
            this.expire(taskId);
        }
    }

    async close(): Promise<void> {
        this.orphans.clear();
        this.held.clear();
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
        this.expiries.remove(entry);
        if (this.orphans.delete(taskId)) {
            this.orphanBytes -= entry.bytes;
        }
        const held = (this.held.get(clientKey) ?? entry.bytes) - entry.bytes;
        if (held > 0) {
            this.held.set(clientKey, held);
        } else {
            this.held.delete(clientKey);
        }
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

/** A queue item: its deadline (Clock.now()), tie-break order, and place in the heap (-1: not queued). */
export interface Deadline {
    at: number;
    order: number;
    slot: number;
}

/**
 * Deadlines in a binary min-heap (earliest first; equal deadlines in the order they were set)
 * behind one unref'd timer set for the earliest. Items know their slot, so a new deadline moves
 * the item instead of leaving a stale copy queued until its old time.
 */
class ExpiryQueue<T extends Deadline> {
    private readonly heap: T[] = [];
    private timer?: ClockTimer;
    private timerAt = Infinity;
    private order = 0;

    constructor(
        private readonly clock: Clock,
        private readonly onDue: (item: T) => void,
    ) {}

    /** (Re)queues `item` to fall due `ttl` ms from now. */
    schedule(item: T, ttl: number): void {
        item.at = this.clock.now() + ttl;
        item.order = this.order++;
        if (item.slot < 0) {
            item.slot = this.heap.push(item) - 1;
        }
        this.siftDown(this.siftUp(item.slot));
        // A timer left early (the first item moved later) just finds nothing due and re-arms.
        if (this.heap[0]!.at < this.timerAt) {
            this.arm();
        }
    }

    /** Takes `item` out of the queue (deleted before its deadline). */
    remove(item: T): void {
        const slot = item.slot;
        if (slot < 0) {
            return;
        }
        const heap = this.heap;
        const last = heap.pop()!;
        item.slot = -1;
        if (last !== item) {
            this.place(last, slot);
            this.siftDown(this.siftUp(slot));
        }
    }

    clear(): void {
        this.clock.clearTimeout(this.timer);
        this.timer = undefined;
        this.timerAt = Infinity;
        for (const item of this.heap) {
            item.slot = -1;
        }
        this.heap.length = 0;
    }

    private arm(): void {
        this.clock.clearTimeout(this.timer);
        const first = this.heap[0];
        if (!first) {
            this.timer = undefined;
            this.timerAt = Infinity;
            return;
        }
        this.timerAt = first.at;
        this.timer = this.clock.setTimeout(fireQueue, Math.min(Math.max(first.at - this.clock.now(), 0), MAX_TIMER_MS), this, true);
    }

    /** @internal the timer fired: expires what is due and re-arms for the rest. */
    fire(): void {
        this.timer = undefined;
        this.timerAt = Infinity;
        const now = this.clock.now();
        while (this.heap.length > 0 && this.heap[0]!.at <= now) {
            this.onDue(this.pop());
        }
        if (this.timer === undefined) {
            this.arm();
        }
    }

    private pop(): T {
        const heap = this.heap;
        const top = heap[0]!;
        const last = heap.pop()!;
        top.slot = -1;
        if (heap.length > 0) {
            heap[0] = last;
            last.slot = 0;
            this.siftDown(0);
        }
        return top;
    }

    private siftUp(i: number): number {
        const heap = this.heap;
        const item = heap[i]!;
        while (i > 0) {
            const parent = (i - 1) >> 1;
            if (!before(item, heap[parent]!)) {
                break;
            }
            this.place(heap[parent]!, i);
            i = parent;
        }
        this.place(item, i);
        return i;
    }

    private siftDown(i: number): void {
        const heap = this.heap;
        const item = heap[i]!;
        for (;;) {
            const left = 2 * i + 1;
            if (left >= heap.length) {
                break;
            }
            const right = left + 1;
            const child = right < heap.length && before(heap[right]!, heap[left]!) ? right : left;
            if (!before(heap[child]!, item)) {
                break;
            }
            this.place(heap[child]!, i);
            i = child;
        }
        this.place(item, i);
    }

    private place(item: T, slot: number): void {
        this.heap[slot] = item;
        item.slot = slot;
    }
}

/** One function for the queue's timer (its argument says which queue), instead of a bound method each. */
function fireQueue<T extends Deadline>(queue: ExpiryQueue<T>): void {
    queue.fire();
}

function before(a: Deadline, b: Deadline): boolean {
    return a.at < b.at || (a.at === b.at && a.order < b.order);
}

/** How many parsed outcomes stay cached: a bounded few, so the retained heap stays the flat JSON strings. */
const PARSED_OUTCOMES = 256;

/**
 * Parsed outcomes keyed by their JSON string (a finished task's outcome never changes, and an
 * expired one is simply never asked again), least recently read first out. The objects are shared
 * between callers, who copy what they change (they all do: results are spread into responses).
 */
class ParsedOutcomes {
    private readonly cache = new Map<string, TaskOutcome>();

    get(json: string): TaskOutcome {
        let outcome = this.cache.get(json);
        if (outcome !== undefined) {
            // Re-inserted: now the most recently read.
            this.cache.delete(json);
        } else {
            outcome = JSON.parse(json) as TaskOutcome;
            if (this.cache.size >= PARSED_OUTCOMES) {
                this.cache.delete(this.cache.keys().next().value as string);
            }
        }
        this.cache.set(json, outcome);
        return outcome;
    }
}
