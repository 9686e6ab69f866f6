/**
 * How long the starts of one event-loop turn may take together; the first start of a turn always
 * goes, however long it takes.
 */
export const SPAWN_BUDGET_MS = 4;

/**
 * Starting a process holds the main thread for milliseconds: the fork and exec happen inside the
 * call, and the larger the server's memory the longer the fork (6 ms each on the 2-core test VM).
 * 500 starts made as they came froze the server for 7.6 s (2.0 s under the default cap of 32
 * processes, the cap's first 32 and the bookkeeping of the rest), and another client's polls went
 * unanswered long enough for `--abandon-after` to cancel its task. Starts therefore wait in one
 * line and are made a few per event-loop turn, within SPAWN_BUDGET_MS, so the requests that arrive
 * meanwhile are read and answered between them. The line is a plain first-in first-out queue: a
 * start that waits costs nothing until its turn.
 */
export class SpawnPacer {
    private line: (() => void)[] = [];
    /** Where the next start is in `line`: taking one is a step, not a shift of the whole line. */
    private next = 0;
    private scheduled = false;

    constructor(private readonly budgetMs = SPAWN_BUDGET_MS) {}

    /** Starts waiting to be made. */
    get waiting(): number {
        return this.line.length - this.next;
    }

    /** Runs `start` (synchronous: the spawn and what must follow it at once) in a later turn, after those that came before it. */
    run<T>(start: () => T): Promise<T> {
        return new Promise<T>((resolve, reject) => {
            this.line.push(() => {
                try {
                    resolve(start());
                } catch (err) {
                    reject(err as Error);
                }
            });
            this.schedule();
        });
    }

    private schedule(): void {
        if (!this.scheduled) {
            this.scheduled = true;
            setImmediate(startSome, this);
        }
    }

    /** @internal one turn's starts. */
    turn(): void {
        this.scheduled = false;
        const end = performance.now() + this.budgetMs;
        do {
            const start = this.line[this.next]!;
            this.line[this.next++] = noop;
            start();
        } while (this.next < this.line.length && performance.now() < end);
        if (this.next === this.line.length) {
            this.line = [];
            this.next = 0;
            return;
        }
        if (this.next > 1024 && this.next * 2 > this.line.length) {
            // A line that never empties drops its spent half now and then.
            this.line = this.line.slice(this.next);
            this.next = 0;
        }
        this.schedule();
    }
}

function startSome(pacer: SpawnPacer): void {
    pacer.turn();
}

function noop(): void {}

/** The process's one line of starts: every server in it shares the main thread that forks. */
export const spawnPacer = new SpawnPacer();
