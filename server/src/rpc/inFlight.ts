import type { RequestId } from './messages.js';

/**
 * What is in flight, by request id: an entry added and removed for every request. Not a Map: V8
 * links each table a Map outgrows or compacts to the one that replaces it (for live iterators), so
 * under steady churn a table promoted to the old generation keeps every later table, and every
 * value they held, alive through each scavenge until a full GC. Measured on the gateway's plain
 * calls: with Maps nearly every call's objects were promoted (about 2 MB per scavenge, a full GC
 * every few). Number ids (nearly every client's) go in a NumberSlots table, string ids in an
 * object used as a dictionary (no such link either), so ids 1 and "1" stay two requests.
 */
export class InFlight<V> {
    private numbers = new NumberSlots<V>();
    private strings: Record<string, V | undefined> = Object.create(null) as Record<string, V | undefined>;
    private stringCount = 0;

    get size(): number {
        return this.numbers.size + this.stringCount;
    }

    get(id: RequestId): V | undefined {
        return typeof id === 'number' ? this.numbers.get(id) : this.strings[id];
    }

    has(id: RequestId): boolean {
        return this.get(id) !== undefined;
    }

    /** `value` must not be undefined (undefined means absent). */
    set(id: RequestId, value: V): void {
        if (typeof id === 'number') {
            this.numbers.set(id, value);
            return;
        }
        if (this.strings[id] === undefined) {
            this.stringCount++;
        }
        this.strings[id] = value;
    }

    /** Whether there was an entry to remove. */
    delete(id: RequestId): boolean {
        if (typeof id === 'number') {
            return this.numbers.delete(id);
        }
        if (this.strings[id] === undefined) {
            return false;
        }
        delete this.strings[id];
        this.stringCount--;
        return true;
    }

    values(): V[] {
        return [...this.numbers.values(), ...(Object.values(this.strings) as V[])];
    }

    clear(): void {
        this.numbers = new NumberSlots<V>();
        this.strings = Object.create(null) as Record<string, V | undefined>;
        this.stringCount = 0;
    }
}

const MIN_SLOTS = 64;

/**
 * Number keys in two arrays, open addressing by the key's low bits (a client's ids count up, so
 * its requests in flight rarely share a slot), removal by shifting the entries after it back.
 * Saves 200-250 ns per request against number keys on a dictionary object (each `delete` a call
 * into the runtime, the object's element store rebuilt under churn): about 7 % of a stdio greet.
 */
class NumberSlots<V> {
    private keys: (number | undefined)[] = new Array<number | undefined>(MIN_SLOTS).fill(undefined);
    private slots: (V | undefined)[] = new Array<V | undefined>(MIN_SLOTS).fill(undefined);
    private mask = MIN_SLOTS - 1;
    size = 0;

    get(key: number): V | undefined {
        const at = this.find(key);
        return at < 0 ? undefined : this.slots[at];
    }

    set(key: number, value: V): void {
        const at = this.find(key);
        if (at >= 0) {
            this.slots[at] = value;
            return;
        }
        if ((this.size + 1) * 2 > this.keys.length) {
            this.resize(this.keys.length * 2);
        }
        this.place(key, value);
        this.size++;
    }

    delete(key: number): boolean {
        const { keys, slots, mask } = this;
        let hole = this.find(key);
        if (hole < 0) {
            return false;
        }
        // Entries after the hole that could not sit in their own slot move back into it, so that
        // every entry stays reachable from its slot without a gap (no markers for removed keys).
        for (let at = (hole + 1) & mask; keys[at] !== undefined; at = (at + 1) & mask) {
            const home = keys[at]! & mask;
            const stays = hole < at ? home > hole && home <= at : home > hole || home <= at;
            if (!stays) {
                keys[hole] = keys[at];
                slots[hole] = slots[at];
                hole = at;
            }
        }
        keys[hole] = undefined;
        slots[hole] = undefined;
        this.size--;
        if (this.size * 8 < keys.length && keys.length > MIN_SLOTS) {
            this.resize(keys.length / 2);
        }
        return true;
    }

    values(): V[] {
        return this.slots.filter((value): value is V => value !== undefined);
    }

    /** The key's slot, or -1. `key & mask` folds any number (fractions, large ones) to a slot. */
    private find(key: number): number {
        const { keys, mask } = this;
        for (let at = key & mask; ; at = (at + 1) & mask) {
            const found = keys[at];
            if (found === undefined) {
                return -1;
            }
            if (found === key) {
                return at;
            }
        }
    }

    private place(key: number, value: V): void {
        const { keys, mask } = this;
        let at = key & mask;
        while (keys[at] !== undefined) {
            at = (at + 1) & mask;
        }
        keys[at] = key;
        this.slots[at] = value;
    }

    private resize(length: number): void {
        const { keys, slots } = this;
        this.keys = new Array<number | undefined>(length).fill(undefined);
        this.slots = new Array<V | undefined>(length).fill(undefined);
        this.mask = length - 1;
        for (let i = 0; i < keys.length; i++) {
            if (keys[i] !== undefined) {
                this.place(keys[i]!, slots[i]!);
            }
        }
    }
}
