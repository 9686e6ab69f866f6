/** Results of finished tasks the extension has fetched (no vscode import: unit-tested). */

/**
 * A finished task's result never changes, so the one the extension fetched (to show it, or for a
 * completion notice) is kept: it stays readable after its server is gone (a crash takes an
 * in-memory store with it). Bounded: the most recently used `maxEntries`, none larger than
 * `maxChars` characters of text.
 */
export class ResultCache<T> {
    private readonly entries = new Map<string, T>();

    constructor(
        private readonly maxEntries = 100,
        private readonly maxChars = 1_000_000,
        private readonly sizeOf: (value: T) => number = value => JSON.stringify(value).length,
    ) {}

    get(taskId: string): T | undefined {
        const value = this.entries.get(taskId);
        if (value !== undefined) {
            // Most recently used last: the first entry is the one to drop.
            this.entries.delete(taskId);
            this.entries.set(taskId, value);
        }
        return value;
    }

    set(taskId: string, value: T): void {
        if (this.sizeOf(value) > this.maxChars) {
            return;
        }
        this.entries.delete(taskId);
        this.entries.set(taskId, value);
        while (this.entries.size > this.maxEntries) {
            this.entries.delete(this.entries.keys().next().value!);
        }
    }

    get size(): number {
        return this.entries.size;
    }
}
