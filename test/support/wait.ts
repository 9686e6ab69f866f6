/**
 * The one way the suites wait. A wait resolves on the event itself (a message, a log line, a
 * state the server reports); its timeout only bounds a hung test and is never an assertion
 * about speed, so it is generous and the same everywhere.
 */

/** How long any wait may take before the test counts as hung. */
export const HUNG_MS = 30_000;

export interface WaitOptions {
    /** Re-check whenever this feed (or one of these) gets something, instead of polling. */
    on?: Changes | Changes[];
    /** Polling interval when nothing tells us the state changed (a question to the server). */
    everyMs?: number;
    timeoutMs?: number;
    /** Treat a check that throws as "not yet" (state that is not there to ask about yet) instead of failing the wait. */
    retryErrors?: boolean;
}

/** Something that says "look again": a feed of messages, log lines, process events. */
export class Changes {
    private readonly listeners = new Set<() => void>();

    notify(): void {
        for (const listener of [...this.listeners]) {
            listener();
        }
    }

    listen(listener: () => void): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }
}

/**
 * Resolves with the first truthy value of `check`. With `on`, `check` runs now and again on each
 * change; without, it is polled (for state only a request can see). A check that throws fails the
 * wait, unless `retryErrors` says to keep its error for the timeout message and look again.
 */
export function waitUntil<T>(check: () => T | Promise<T>, what: string, options: WaitOptions = {}): Promise<NonNullable<T>> {
    const timeoutMs = options.timeoutMs ?? HUNG_MS;
    const feeds = options.on === undefined ? [] : Array.isArray(options.on) ? options.on : [options.on];
    return new Promise((resolve, reject) => {
        let done = false;
        let running = false;
        let again = false;
        let lastError: unknown;
        const unlisten = feeds.map(feed => feed.listen(() => void look()));
        const poll = feeds.length === 0 ? setInterval(() => void look(), options.everyMs ?? 20) : undefined;
        const timer = setTimeout(() => finish(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`))), timeoutMs);
        function finish(settle: () => void): void {
            if (!done) {
                done = true;
                clearTimeout(timer);
                clearInterval(poll);
                unlisten.forEach(stop => stop());
                settle();
            }
        }
        // Checks never overlap; a change during an async check runs it once more afterwards.
        async function look(): Promise<void> {
            if (running) {
                again = true;
                return;
            }
            running = true;
            do {
                again = false;
                try {
                    const value = await check();
                    if (value) {
                        finish(() => resolve(value as NonNullable<T>));
                    }
                } catch (err) {
                    if (!options.retryErrors) {
                        finish(() => reject(err instanceof Error ? err : new Error(String(err))));
                    }
                    lastError = err;
                }
            } while (again && !done);
            running = false;
        }
        void look();
    });
}

/**
 * Resolves once every promise callback queued so far has run, and every one those queue in turn
 * (Node empties its microtask queues before it runs an immediate). For asserting that something
 * has NOT happened: anything still to come then waits on a timer or on I/O, which the test drives
 * itself (a ManualClock, a socket it holds). Anything that should happen is awaited instead.
 */
export function promisesDrained(): Promise<void> {
    return new Promise(resolve => setImmediate(resolve));
}

/** An append-only list that can be waited on: every message or line a test collects. */
export class Feed<T> {
    readonly items: T[] = [];
    readonly changes = new Changes();

    push(...items: T[]): void {
        this.items.push(...items);
        this.changes.notify();
    }

    /** The first item (already here or still to come) that matches. */
    waitFor(match: (item: T) => boolean, what: string, timeoutMs?: number): Promise<T> {
        const found = () => {
            const index = this.items.findIndex(match);
            return index < 0 ? undefined : { item: this.items[index]! };
        };
        return waitUntil(found, what, { on: this.changes, timeoutMs }).then(hit => hit.item);
    }

    /** Resolves once `check` over all items holds. */
    until<V>(check: (items: T[]) => V, what: string, timeoutMs?: number): Promise<NonNullable<V>> {
        return waitUntil(() => check(this.items), what, { on: this.changes, timeoutMs });
    }
}
