import type { ChildProcess } from 'node:child_process';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport } from './sdkClient.js';

/** The longest partial line kept while waiting for its end, as the SDK's own limit (10 MiB). */
const MAX_PARTIAL_LINE = 10 * 1024 * 1024;

/**
 * The SDK's stdio client transport (it starts, stops and restarts the process as before), with
 * two lean paths for the gateway's per-call costs; where the SDK's internals are not as expected
 * (another SDK version beside an npm install), the SDK's own code runs instead.
 */
export class LeanStdioTransport extends StdioClientTransport {
    private batch = '';
    private sent?: { promise: Promise<void>; resolve(): void; reject(err: Error): void };
    private partial = '';

    override async start(): Promise<void> {
        await super.start();
        this.readLean();
    }

    /**
     * Batched writes: the messages sent in one turn of the event loop go in one write. Saves a
     * system call and a wake-up of the downstream per message (with 32 calls in flight, one write
     * carries a burst of requests where the SDK made one write each).
     */
    override send(message: JSONRPCMessage): Promise<void> {
        return this.sendLine(JSON.stringify(message)) ?? super.send(message);
    }

    /**
     * Sends a message already written as JSON text (one line, without its newline), batched as
     * send's; undefined when the process is not running (send's refusal is the SDK's then).
     */
    sendLine(json: string): Promise<void> | undefined {
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
        return this.sent.promise;
    }

    private flush(): void {
        const { batch, sent } = this;
        this.batch = '';
        this.sent = undefined;
        const stdin = this.stdin();
        if (!stdin) {
            sent?.reject(new Error('Not connected'));
            return;
        }
        if (stdin.write(batch)) {
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
            this.onerror?.(new Error(`ReadBuffer exceeded maximum size of ${MAX_PARTIAL_LINE} bytes`));
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
        this.onmessage?.(message as JSONRPCMessage);
    }

    /** The child's stdin, while the process runs. */
    private stdin(): NodeJS.WritableStream | undefined {
        return this.process()?.stdin ?? undefined;
    }

    /** The SDK keeps the running process as `_process` (undefined once it has closed). */
    private process(): ChildProcess | undefined {
        return (this as unknown as { _process?: ChildProcess })._process;
    }
}
