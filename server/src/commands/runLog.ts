import { close, openSync, writev } from 'node:fs';
import { promisify } from 'node:util';

/** What waits to be written before `write` asks the caller to wait for `drained`. */
const HIGH_WATER = 64 * 1024;
const writevAt = promisify(writev);
const closeFd = promisify(close);

/**
 * A command's log as the server writes it (the command never writes here itself: it writes to
 * its capture file, and the server copies what it reads there into this, secrets hidden;
 * capture.ts). Opened synchronously, so a run starts in one step (spawnPacer.ts).
 */
export class RunLog {
    /** Bytes in the file. */
    private fileBytes = 0;
    private queue: Buffer[] = [];
    private queued = 0;
    private pumping?: Promise<void>;
    private waiters: (() => void)[] = [];
    private ended = false;
    /** Why the log could not be written (a full disk): later output is dropped. */
    error?: NodeJS.ErrnoException;

    private constructor(
        private readonly fd: number,
        private readonly onError: (err: NodeJS.ErrnoException) => void,
    ) {}

    /** Creates the log file (0600), synchronously: a run starts in one step (spawnPacer.ts). Throws what the open threw. */
    static open(path: string, onError: (err: NodeJS.ErrnoException) => void): RunLog {
        return new RunLog(openSync(path, 'w+', 0o600), onError);
    }

    /** Takes output (whole lines); false asks the caller to wait for `drained` before writing more. */
    write(chunk: Buffer | string): boolean {
        if (this.error || this.ended) {
            return true;
        }
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        if (bytes.length > 0) {
            this.queue.push(bytes);
            this.queued += bytes.length;
            this.pumping ??= this.pump();
        }
        return this.queued < HIGH_WATER;
    }

    /** Resolves once what waits to be written is under the high-water mark again (or the log failed). */
    drained(): Promise<void> {
        if (this.queued < HIGH_WATER || this.error) {
            return Promise.resolve();
        }
        return new Promise(resolve => this.waiters.push(resolve));
    }

    /** Writes what is left and closes the file. */
    async end(): Promise<void> {
        this.ended = true;
        await this.pumping;
        await closeFd(this.fd).catch(() => undefined);
    }

    private async pump(): Promise<void> {
        try {
            while (this.queue.length > 0 && !this.error) {
                const batch = this.queue;
                const bytes = this.queued;
                this.queue = [];
                this.queued = 0;
                this.wake();
                const { bytesWritten } = await writevAt(this.fd, batch, this.fileBytes);
                if (bytesWritten < bytes) {
                    throw Object.assign(new Error('short write: the disk is full'), { code: 'ENOSPC' });
                }
                this.fileBytes += bytes;
            }
        } catch (err) {
            this.error = err as NodeJS.ErrnoException;
            this.queue = [];
            this.queued = 0;
            this.onError(this.error);
        } finally {
            this.pumping = undefined;
            this.wake();
        }
    }

    private wake(): void {
        if (this.queued < HIGH_WATER || this.error) {
            this.waiters.splice(0).forEach(resolve => resolve());
        }
    }
}
