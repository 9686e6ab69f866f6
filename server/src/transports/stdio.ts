import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { errorMessage } from '../log.js';
import { ErrorCodes } from '../rpc/errors.js';
import { classify, errorResponse, type JsonRpcMessage } from '../rpc/messages.js';
import type { McpSession, Outlet } from '../rpc/session.js';
import type { TasksServer } from '../server.js';

export interface StdioOptions {
    input?: Readable;
    output?: Writable;
    /** Longest accepted line, in bytes; longer ones are answered with an error and skipped. */
    maxMessageBytes?: number;
}

export interface StdioConnection {
    session: McpSession;
    /** Resolves when the input ends. */
    closed: Promise<void>;
}

/** Newline-delimited JSON-RPC on a pair of streams; only protocol frames are written to `output`. */
export function connectStdio(server: TasksServer, options: StdioOptions = {}): StdioConnection {
    const input = options.input ?? process.stdin;
    const output = options.output ?? process.stdout;
    const maxBytes = options.maxMessageBytes ?? 4 * 1024 * 1024;
    let open = true;
    // Frames sent before the microtask queue drains (the answers to one chunk of requests, which
    // resolve together, and the notifications they caused) go out in one write: a write to a pipe
    // is a system call, often the dearest step. A microtask rather than setImmediate: measured, the
    // batches were as large and a lone request's answer leaves 30-40 µs sooner.
    let pending = '';
    let scheduled = false;
    const flush = () => {
        scheduled = false;
        if (pending !== '') {
            const text = pending;
            pending = '';
            output.write(text);
        }
    };
    const outlet: Outlet = {
        send(message: JsonRpcMessage) {
            if (!open) {
                return false;
            }
            pending += JSON.stringify(message) + '\n';
            if (!scheduled) {
                scheduled = true;
                queueMicrotask(flush);
            }
            return true;
        },
        flush,
    };
    // One connection, one client: the pipe is the binding.
    const session = server.createSession({ clientKey: `stdio:${randomUUID()}`, isOwner: false }, { standalone: () => outlet });

    const handleLine = (line: string) => {
        if (line.trim() === '') {
            return;
        }
        let value: unknown;
        try {
            value = JSON.parse(line);
        } catch {
            outlet.send(errorResponse(null, { code: ErrorCodes.ParseError, message: 'Parse error: the line is not valid JSON' }));
            return;
        }
        const classified = classify(value);
        // A throw here would be an uncaught exception: one bad message must not end the process.
        try {
            switch (classified.kind) {
                case 'invalid':
                    outlet.send(errorResponse(classified.id, { code: ErrorCodes.InvalidRequest, message: `Invalid Request: ${classified.reason}` }));
                    break;
                case 'notification':
                    session.handleNotification(classified.message);
                    break;
                case 'response':
                    session.handleResponse(classified.message);
                    break;
                case 'request': {
                    const { id } = classified.message;
                    void session
                        .handleRequest(classified.message, outlet)
                        .then(response => outlet.send(response))
                        .catch(err => {
                            server.log.error(`[stdio] cannot send the response to ${String(id)}: ${errorMessage(err)}`);
                            outlet.send(errorResponse(id, { code: ErrorCodes.InternalError, message: 'Internal error: the response could not be sent' }));
                        });
                    break;
                }
            }
        } catch (err) {
            server.log.error(`[stdio] a ${classified.kind} message failed: ${errorMessage(err)}`);
        }
    };

    let buffered = '';
    let skipping = false;
    const tooLarge = () => outlet.send(errorResponse(null, { code: ErrorCodes.InvalidRequest, message: `Invalid Request: message larger than ${maxBytes} bytes` }));
    input.setEncoding?.('utf8');
    input.on('data', (chunk: string) => {
        let start = 0;
        let newline = chunk.indexOf('\n');
        while (newline >= 0) {
            const piece = chunk.slice(start, newline);
            if (skipping) {
                skipping = false;
            } else {
                // The chunk that ends a line can carry it past the limit too.
                const line = buffered + piece;
                // A UTF-16 unit is at most 3 UTF-8 bytes: most lines need no byte count at all.
                if (line.length * 3 > maxBytes && Buffer.byteLength(line) > maxBytes) {
                    tooLarge();
                } else {
                    handleLine(line);
                }
            }
            buffered = '';
            start = newline + 1;
            newline = chunk.indexOf('\n', start);
        }
        if (!skipping) {
            buffered += chunk.slice(start);
            if (buffered.length * 3 > maxBytes && Buffer.byteLength(buffered) > maxBytes) {
                buffered = '';
                skipping = true;
                tooLarge();
            }
        }
    });
    const closed = new Promise<void>(resolve => {
        const end = () => {
            if (open) {
                open = false;
                resolve();
            }
        };
        input.once('end', end);
        input.once('close', end);
        output.once?.('error', end);
    });
    return { session, closed };
}
