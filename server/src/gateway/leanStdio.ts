import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport } from './sdkClient.js';

/** The longest partial line kept while waiting for its end, as the SDK's own limit (10 MiB). */
const MAX_PARTIAL_LINE = 10 * 1024 * 1024;
/**
 * While the downstream holds no more than this many of our requests unanswered, a request is
 * written at once instead of at the end of the turn: about as much work as lasts a wrapped
 * server (15-20 µs per echo) through one of our turns of a dozen calls (60-80 µs). Measured with
 * 32 echo calls in flight: server-everything idled about a fifth of the time waiting for our
 * batches; writing early while it runs low gave 11 % more calls a second through the gateway
 * (taken in turns with the batch-per-turn build). 2 and 4 did worse, 16 no better.
 */
const KEEP_FED = 8;

/**
 * The SDK's stdio client transport (it starts, stops and restarts the process as before), with
 * two lean paths for the gateway's per-call costs; where the SDK's internals are not as expected
 * (another SDK version beside an npm install), the SDK's own code runs instead.
 */
export class LeanStdioTransport extends StdioClientTransport {
    private batch = '';
    private sent?: { promise: Promise<void>; resolve(): void; reject(err: Error): void };
    private partial = '';
    /** Our requests written (or about to be) whose response has not been read yet. */
    private unanswered = 0;
    /** Why this transport ended the connection itself, when it did: what a call it took down is told, not "its process exited". */
    endReason?: string;

    override async start(): Promise<void> {
        await super.start();
        this.readLean();
    }

    /**
     * Batched writes: the messages sent in one turn of the event loop go in one write, once the
     * downstream has work enough (KEEP_FED). Saves a system call and a wake-up of the downstream
     * per message (with 32 calls in flight, one write carries a burst of requests where the SDK
     * made one write each), without leaving the downstream idle while the turn goes on.
     */
    override send(message: JSONRPCMessage): Promise<void> {
        if ('method' in message && message.method === 'notifications/cancelled' && this.unanswered > 0) {
            // A cancelled request may never be answered: no longer counted as the downstream's work.
            this.unanswered--;
        }
        return this.sendLine(JSON.stringify(message), 'method' in message && 'id' in message) ?? super.send(message);
    }

    /**
     * Sends a message already written as JSON text (one line, without its newline), batched as
     * send's; `request` when it is a request (it counts towards the downstream's work until its
     * response is read). Undefined when the process is not running (send's refusal is the SDK's then).
     */
    sendLine(json: string, request: boolean): Promise<void> | undefined {
        if (!this.stdin()) {
            return undefined;
        }
        this.batch += `${json}\n`;
        if (!this.sent) {
            let resolve!: () => void;
            let reject!: (err: Error) => void;
            const promise = new Promise<void>((ok, fail) => {
                resolve = ok;
                reject = fail;
            });
            this.sent = { promise, resolve, reject };
            process.nextTick(() => this.flush());
        }
        if (request && ++this.unanswered <= KEEP_FED) {
            this.write();
        }
        return this.sent.promise;
    }

    /** Writes what waits; false when the pipe asks us to wait for 'drain' (or the process is gone). */
    private write(): boolean {
        const stdin = this.stdin();
        if (!stdin) {
            return false;
        }
        if (this.batch === '') {
            return !stdin.writableNeedDrain;
        }
        const batch = this.batch;
        this.batch = '';
        return stdin.write(batch);
    }

    /** The turn's write: whatever the turn left, and the promise of everything sent in it settles. */
    private flush(): void {
        const { sent } = this;
        this.sent = undefined;
        const stdin = this.stdin();
        if (!stdin) {
            this.batch = '';
            sent?.reject(new Error('Not connected'));
        } else if (this.write()) {
            sent?.resolve();
        } else {
            stdin.once('drain', () => sent?.resolve());
        }
    }

    /**
     * Lean reads: lines decoded as text and parsed with JSON.parse only, instead of the SDK's
     * Buffer.concat per chunk and zod parse of every message (the Client checks each message's
     * kind again anyway). Saves about a tenth of the gateway's CPU per call, most of it garbage.
     * A line that is not JSON-RPC is reported to onerror and skipped, as the SDK's reader does.
     */
    private readLean(): void {
        const stdout = this.process()?.stdout;
        const sdkReaders = stdout?.listeners('data');
        if (!stdout || sdkReaders?.length !== 1) {
            return;
        }
        stdout.removeListener('data', sdkReaders[0] as (chunk: Buffer) => void);
        stdout.setEncoding('utf8');
        stdout.on('data', (chunk: string) => this.onChunk(chunk));
    }

    private onChunk(chunk: string): void {
        let start = 0;
        let newline = chunk.indexOf('\n');
        while (newline >= 0) {
            const line = this.partial + chunk.slice(start, newline);
            this.partial = '';
            this.onLine(line);
            start = newline + 1;
            newline = chunk.indexOf('\n', start);
        }
        this.partial += chunk.slice(start);
        if (this.partial.length > MAX_PARTIAL_LINE) {
            this.partial = '';
            this.endReason = `it wrote a line longer than ${MAX_PARTIAL_LINE / 1024 / 1024} MiB, the most one message may be, so its connection was closed`;
            this.onerror?.(new Error(`it wrote a line longer than ${MAX_PARTIAL_LINE} bytes`));
            this.close().catch(() => undefined);
        }
    }

    private onLine(line: string): void {
        const text = line.endsWith('\r') ? line.slice(0, -1) : line;
        if (text.trim() === '') {
            return;
        }
        let message: unknown;
        try {
            message = JSON.parse(text);
        } catch (err) {
            this.onerror?.(err instanceof Error ? err : new Error(String(err)));
            return;
        }
        if (message === null || typeof message !== 'object' || (message as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
            this.onerror?.(new Error(`Not a JSON-RPC 2.0 message: ${text.slice(0, 200)}`));
            return;
        }
        if (this.unanswered > 0 && 'id' in message && !('method' in message)) {
            this.unanswered--;
        }
        this.onmessage?.(message as JSONRPCMessage);
    }

    /** The child's stdin, while the process runs. */
    private stdin(): Writable | undefined {
        return this.process()?.stdin ?? undefined;
    }

    /** The SDK keeps the running process as `_process` (undefined once it has closed). */
    private process(): ChildProcess | undefined {
        return (this as unknown as { _process?: ChildProcess })._process;
    }
}
