import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
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
    const outlet: Outlet = {
        send(message: JsonRpcMessage) {
            if (!open) {
                return false;
            }
            output.write(JSON.stringify(message) + '\n');
            return true;
        },
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
            case 'request':
                void session.handleRequest(classified.message, outlet).then(response => outlet.send(response));
                break;
        }
    };

    let buffered = '';
    let skipping = false;
    input.setEncoding?.('utf8');
    input.on('data', (chunk: string) => {
        let start = 0;
        let newline = chunk.indexOf('\n');
        while (newline >= 0) {
            const piece = chunk.slice(start, newline);
            if (skipping) {
                skipping = false;
            } else {
                handleLine(buffered + piece);
            }
            buffered = '';
            start = newline + 1;
            newline = chunk.indexOf('\n', start);
        }
        if (!skipping) {
            buffered += chunk.slice(start);
            if (Buffer.byteLength(buffered) > maxBytes) {
                buffered = '';
                skipping = true;
                outlet.send(errorResponse(null, { code: ErrorCodes.InvalidRequest, message: `Invalid Request: message larger than ${maxBytes} bytes` }));
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
