import type { RequestId } from './messages.js';

/**
 * What is in flight, by request id: an entry added and removed for every request. Not a Map: V8
 * links each table a Map outgrows or compacts to the one that replaces it (for live iterators), so
 * under steady churn a table promoted to the old generation keeps every later table, and every
 * value they held, alive through each scavenge until a full GC. Measured on the gateway's plain
 * calls: with Maps nearly every call's objects were promoted (about 2 MB per scavenge, a full GC
 * every few); objects used as dictionaries have no such link. Numbers and strings are kept apart,
 * so ids 1 and "1" stay two requests.
 */
export class InFlight<V> {
    private numbers: Record<number, V | undefined> = Object.create(null) as Record<number, V | undefined>;
    private strings: Record<string, V | undefined> = Object.create(null) as Record<string, V | undefined>;
    private count = 0;

    get size(): number {
        return this.count;
    }

    get(id: RequestId): V | undefined {
        return typeof id === 'number' ? this.numbers[id] : this.strings[id];
    }

    has(id: RequestId): boolean {
        return this.get(id) !== undefined;
    }

    /** `value` must not be undefined (undefined means absent). */
    set(id: RequestId, value: V): void {
        const table = this.table(id);
        if (table[id] === undefined) {
            this.count++;
        }
        table[id] = value;
    }

    /** Whether there was an entry to remove. */
    delete(id: RequestId): boolean {
        const table = this.table(id);
        if (table[id] === undefined) {
            return false;
        }
        delete table[id];
        this.count--;
        return true;
    }

    values(): V[] {
        return [...Object.values(this.numbers), ...Object.values(this.strings)] as V[];
    }

    clear(): void {
        this.numbers = Object.create(null) as Record<number, V | undefined>;
        this.strings = Object.create(null) as Record<string, V | undefined>;
        this.count = 0;
    }

    private table(id: RequestId): Record<RequestId, V | undefined> {
        return typeof id === 'number' ? this.numbers : this.strings;
    }
}
