/** Results of finished tasks the extension has fetched, kept across crashes and window reloads (no vscode import: unit-tested). */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ResultCacheOptions {
    /** The most results kept (the least recently used go first). */
    maxEntries?: number;
    /** A result larger than this (bytes of its JSON) is not kept at all. */
    maxBytes?: number;
    /** The kept results together stay under this (bytes of their JSON). */
    maxTotalBytes?: number;
    /**
     * Where the results are written, one file each plus an index: the workspace's storage. Without
     * one they are kept in memory only, and go with the window.
     */
    dir?: string;
    now?: () => number;
    /** Told when the folder cannot be read or written (the results are then kept in memory). */
    onError?: (message: string) => void;
}

/** What is kept of one result, besides the result itself: enough to list its task again after a reload. */
export interface KeptEntry<V> {
    taskId: string;
    /** The task as the sidebar last showed it. */
    view?: V;
    /** When its task's TTL runs out (ms since the epoch): the server would have dropped it then too. */
    expiresAt?: number;
    bytes: number;
    /** Its file in `dir`. */
    file: string;
}

const INDEX_FILE = 'index.json';

/**
 * A finished task's result never changes, so the one the extension fetched (to show it, or for a
 * completion notice) is kept: it stays readable after its server is gone (a crash takes an
 * in-memory store with it) and, written to the workspace's storage, after the window reloads.
 * Only results this window's owner connection fetched are kept: what the user could open here.
 * Bounded: the most recently used `maxEntries`, none over `maxBytes`, all together under
 * `maxTotalBytes`; a result whose task's TTL has passed is dropped, as the server drops it.
 */
export class ResultCache<T, V = unknown> {
    private readonly entries = new Map<string, KeptEntry<V>>();
    /** Results read or set in this window; the others are read from their file when asked for. */
    private readonly values = new Map<string, T>();
    private readonly maxEntries: number;
    private readonly maxBytes: number;
    private readonly maxTotalBytes: number;
    private readonly now: () => number;
    private total = 0;
    private dir?: string;

    constructor(private readonly options: ResultCacheOptions = {}) {
        this.maxEntries = options.maxEntries ?? 100;
        this.maxBytes = options.maxBytes ?? 1_000_000;
        this.maxTotalBytes = options.maxTotalBytes ?? 20_000_000;
        this.now = options.now ?? Date.now;
        this.dir = options.dir;
        if (this.dir) {
            this.load();
        }
    }

    get(taskId: string): T | undefined {
        const entry = this.live(taskId);
        if (!entry) {
            return undefined;
        }
        let value = this.values.get(taskId);
        if (value === undefined && this.dir) {
            try {
                value = JSON.parse(readFileSync(join(this.dir, entry.file), 'utf8')) as T;
                this.values.set(taskId, value);
            } catch (err) {
                this.options.onError?.(`a kept result cannot be read: ${(err as Error).message}`);
                this.forget([taskId]);
                return undefined;
            }
        }
        // Most recently used last: the first entry is the one to drop.
        this.entries.delete(taskId);
        this.entries.set(taskId, entry);
        this.save();
        return value;
    }

    has(taskId: string): boolean {
        return this.live(taskId) !== undefined;
    }

    /** Keeps `value` (with its task's `view` and when its TTL ends), unless it is too large. */
    set(taskId: string, value: T, about: { view?: V; expiresAt?: number } = {}): void {
        if (about.expiresAt !== undefined && about.expiresAt <= this.now()) {
            return;
        }
        const text = JSON.stringify(value);
        const bytes = Buffer.byteLength(text);
        if (bytes > this.maxBytes) {
            return;
        }
        this.drop(taskId);
        const entry: KeptEntry<V> = { taskId, view: about.view, expiresAt: about.expiresAt, bytes, file: `${createHash('sha256').update(taskId).digest('hex').slice(0, 32)}.json` };
        if (this.dir && !this.write(entry.file, text)) {
            this.dir = undefined;
        }
        this.entries.set(taskId, entry);
        this.values.set(taskId, value);
        this.total += bytes;
        while (this.entries.size > this.maxEntries || this.total > this.maxTotalBytes) {
            this.drop(this.entries.keys().next().value!);
        }
        this.save();
    }

    /** Forgets these tasks' results (the user cleared their rows). */
    forget(taskIds: Iterable<string>): void {
        let dropped = false;
        for (const taskId of taskIds) {
            dropped = this.drop(taskId) || dropped;
        }
        if (dropped) {
            this.save();
        }
    }

    /** The kept results' tasks, as they were last shown, least recently used first: a reloaded window lists them again. */
    kept(): { taskId: string; view?: V }[] {
        this.pruneExpired();
        return [...this.entries.values()].map(({ taskId, view }) => ({ taskId, view }));
    }

    get size(): number {
        return this.entries.size;
    }

    /** Bytes of JSON kept, all results together. */
    get totalBytes(): number {
        return this.total;
    }

    private live(taskId: string): KeptEntry<V> | undefined {
        const entry = this.entries.get(taskId);
        if (entry?.expiresAt !== undefined && entry.expiresAt <= this.now()) {
            this.forget([taskId]);
            return undefined;
        }
        return entry;
    }

    private pruneExpired(): void {
        const now = this.now();
        this.forget([...this.entries.values()].filter(entry => entry.expiresAt !== undefined && entry.expiresAt <= now).map(entry => entry.taskId));
    }

    private drop(taskId: string): boolean {
        const entry = this.entries.get(taskId);
        if (!entry) {
            return false;
        }
        this.entries.delete(taskId);
        this.values.delete(taskId);
        this.total -= entry.bytes;
        if (this.dir) {
            rmSync(join(this.dir, entry.file), { force: true });
        }
        return true;
    }

    /** Reads the index a previous window wrote; entries whose TTL passed, or whose file is gone, are dropped. */
    private load(): void {
        let listed: unknown;
        try {
            listed = JSON.parse(readFileSync(join(this.dir!, INDEX_FILE), 'utf8'));
        } catch {
            // None yet, or unreadable: start empty.
            return;
        }
        const now = this.now();
        for (const raw of Array.isArray(listed) ? (listed as Partial<KeptEntry<V>>[]) : []) {
            if (typeof raw?.taskId !== 'string' || typeof raw.file !== 'string' || !/^[0-9a-f]{32}\.json$/.test(raw.file) || typeof raw.bytes !== 'number') {
                continue;
            }
            if (typeof raw.expiresAt === 'number' && raw.expiresAt <= now) {
                rmSync(join(this.dir!, raw.file), { force: true });
                continue;
            }
            this.entries.set(raw.taskId, { taskId: raw.taskId, view: raw.view, expiresAt: typeof raw.expiresAt === 'number' ? raw.expiresAt : undefined, bytes: raw.bytes, file: raw.file });
            this.total += raw.bytes;
        }
        while (this.entries.size > this.maxEntries || this.total > this.maxTotalBytes) {
            this.drop(this.entries.keys().next().value!);
        }
        this.save();
    }

    private save(): void {
        if (this.dir) {
            this.write(INDEX_FILE, JSON.stringify([...this.entries.values()]));
        }
    }

    /** Written whole and renamed into place: a window that reloads mid-write never reads half a file. */
    private write(file: string, text: string): boolean {
        try {
            mkdirSync(this.dir!, { recursive: true, mode: 0o700 });
            const path = join(this.dir!, file);
            writeFileSync(`${path}.tmp`, text, { mode: 0o600 });
            renameSync(`${path}.tmp`, path);
            return true;
        } catch (err) {
            this.options.onError?.(`kept results cannot be written to ${this.dir}: ${(err as Error).message}; keeping them in memory`);
            return false;
        }
    }
}
