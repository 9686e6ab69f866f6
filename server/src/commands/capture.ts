import { execFile } from 'node:child_process';
import { fstatSync, unlinkSync, watch, type FSWatcher } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { Clock, ClockTimer } from '../util/clock.js';
import { spawnPacer } from './spawnPacer.js';
import { currentPlatform } from '../platform/index.js';

/** Takes each chunk as read; false asks to wait for `drained` before reading on. */
export interface CaptureSink {
    write(chunk: Buffer): boolean;
    drained(): Promise<void>;
}

/** How often a running command's capture file is read when no change was signalled (fs.watch may miss one, or be unavailable). */
export const CAPTURE_POLL_MS = 200;
const CHUNK = 64 * 1024;
/** Once this much more of the capture file has been read, the disk space it held is given back (punchHole). */
export const CAPTURE_RELEASE_BYTES = 4 * 1024 * 1024;
/** Whether the file system let go of the space read (false once fallocate is missing or refuses: the file then keeps it until the run ends). */
let canPunch = currentPlatform.os === 'linux';

/**
 * Where a command writes its output (stdout and stderr alike): a file of its own, not a pipe.
 * Node, like most runtimes, writes to a file synchronously, so a child that ends with
 * process.exit() right after printing keeps every byte; to a pipe or a socket pair (what spawn's
 * 'pipe' gives) it writes asynchronously, and what is still queued at exit is lost: a 507-line
 * test run ending in process.exit(1) kept 171-180 lines in most runs, and a FIFO lost as much once
 * it filled. The server follows the file as it grows and writes the log a person reads (secrets
 * hidden) from it; the capture itself holds the output as written, so it is private (0600), read
 * only by the server, and deleted when the run ends.
 */
export class OutputCapture {
    private position = 0;
    private reading?: Promise<void>;
    private again = false;
    private watcher?: FSWatcher;
    private timer?: ClockTimer;
    private finished = false;
    private closed = false;
    private sink?: CaptureSink;
    /** The bytes before this have been read and their disk space given back. */
    private released = 0;
    private releasing = false;
    /** Why the file could not be read, if it could not: the run ends with what was read. */
    readError?: NodeJS.ErrnoException;

    private constructor(
        readonly path: string,
        /**
         * Opened once, to append and read: the child's stdout and stderr are this descriptor (its
         * writes go to the end), and the server reads it at its own positions.
         */
        private readonly file: FileHandle,
        private readonly clock: Clock,
        /**
         * Keeps every byte until the run ends (no hole punched): a run that may outlive the server
         * is read again from its first byte by the server that re-adopts it (adopt.ts).
         */
        private readonly keepAll: boolean,
    ) {}

    /**
     * Creates the capture file next to the run's log (off the main thread), or opens the one a run
     * already writes (re-adoption); rejects, leaving nothing behind, when it cannot be made.
     */
    static async open(path: string, clock: Clock, keepAll = false): Promise<OutputCapture> {
        return new OutputCapture(path, await open(path, 'a+', 0o600), clock, keepAll);
    }

    /** The descriptor to give the child as stdout and stderr. */
    get fd(): number {
        return this.file.fd;
    }

    /** The child has its descriptor: the file is followed as it grows, each chunk to `sink`. */
    started(sink: CaptureSink): void {
        this.sink = sink;
        try {
            this.watcher = watch(this.path, { persistent: false }, () => void this.read());
            this.watcher.on('error', () => this.watcher?.close());
        } catch {
            // No change events here: the poll below is enough, only slower to show a line.
        }
        this.poll();
    }

    /** Reads what the command wrote up to now, to the end of the file; then stops following it and deletes it. */
    async finish(): Promise<void> {
        this.finished = true;
        this.clock.clearTimeout(this.timer);
        this.watcher?.close();
        await this.read();
        this.closed = true;
        await this.file.close().catch(() => undefined);
        unlinkQuietly(this.path);
    }

    /** The server lets the run go on without it (it shuts down): stops following the file and keeps it, for the next server. */
    async detach(): Promise<void> {
        this.finished = true;
        this.clock.clearTimeout(this.timer);
        this.watcher?.close();
        await this.reading;
        this.closed = true;
        await this.file.close().catch(() => undefined);
    }

    private poll(): void {
        if (!this.finished) {
            this.timer = this.clock.setTimeout(capture => (void capture.read(), capture.poll()), CAPTURE_POLL_MS, this, true);
        }
    }

    /** Reads to the end of the file; a read asked for while one runs makes it go round once more, so none is lost. Never rejects. */
    private read(): Promise<void> {
        const sink = this.sink;
        if (this.closed || this.readError || !sink) {
            return Promise.resolve();
        }
        if (this.reading) {
            this.again = true;
            return this.reading;
        }
        this.reading = (async () => {
            do {
                this.again = false;
                await this.drain(sink);
            } while (this.again);
        })()
            .catch((err: NodeJS.ErrnoException) => void (this.readError ??= err))
            .finally(() => (this.reading = undefined));
        return this.reading;
    }

    private async drain(sink: CaptureSink): Promise<void> {
        // A look that finds nothing new costs an fstat: no buffer, no round trip to the thread pool.
        // Hundreds of quiet runs are each looked at five times a second.
        while (fstatSync(this.file.fd).size > this.position) {
            // A fresh buffer each time: the sink keeps the chunk (the log writes it later).
            const buffer = Buffer.allocUnsafe(CHUNK);
            const { bytesRead } = await this.file.read(buffer, 0, CHUNK, this.position);
            if (bytesRead === 0) {
                return;
            }
            this.position += bytesRead;
            if (!sink.write(buffer.subarray(0, bytesRead))) {
                await sink.drained();
            }
            this.release();
        }
    }

    /**
     * Gives back the disk space of what was read, so a flood does not fill the disk twice (its log
     * is held within --commands-log-limit, runLog.ts): the command goes on appending to the same
     * file, so it cannot be cut or moved under it, but its read part can be made a hole, which
     * keeps every offset (the child's appends and the server's reads) as it was. Linux's
     * fallocate(1) does it; elsewhere, or where the file system cannot, the file keeps its size
     * until the run ends and it is deleted.
     */
    private release(): void {
        if (!canPunch || this.keepAll || this.releasing || this.closed || this.position - this.released < CAPTURE_RELEASE_BYTES) {
            return;
        }
        this.releasing = true;
        const upTo = this.position;
        const args = ['--punch-hole', '--offset', String(this.released), '--length', String(upTo - this.released), this.path];
        // A start like the runs' own (spawnPacer.ts): a flood of floods does not hold the server.
        void spawnPacer.run(() =>
            execFile('fallocate', args, err => {
                this.releasing = false;
                // Missing, or refused while the file is still there (a file system without holes): not tried again.
                if (err && ((err as NodeJS.ErrnoException).code === 'ENOENT' || !this.finished)) {
                    canPunch = false;
                }
                if (!err) {
                    this.released = upTo;
                    // What was read while this ran: a flood read to its end meanwhile calls release no more.
                    this.release();
                }
            }),
        ).catch(() => {
            this.releasing = false;
        });
    }
}

function unlinkQuietly(path: string): void {
    try {
        unlinkSync(path);
    } catch {
        // Already gone.
    }
}
