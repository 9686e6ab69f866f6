/**
 * Server-sent events as the Streamable HTTP transport writes them: each event carries one
 * JSON-RPC message on its `data:` line, and in a session an `id:`; a stream starts with a priming
 * event (an id, `retry`, empty data). One parser for the raw clients of every suite.
 */

/** One event block's fields; `message` is its data as JSON, absent when the data is empty (a priming event). */
export interface SseEvent<T = Record<string, unknown>> {
    id?: string;
    retry?: number;
    data?: string;
    message?: T;
}

/** The fields of one event block, or undefined for a block with none (a comment, a keep-alive). Throws on data that is not JSON. */
export function eventOf<T>(block: string): SseEvent<T> | undefined {
    const event: SseEvent<T> = {};
    let any = false;
    for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon <= 0) {
            continue;
        }
        const field = line.slice(0, colon);
        const value = line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
        if (field === 'id') {
            event.id = value;
        } else if (field === 'retry') {
            event.retry = Number(value);
        } else if (field === 'data') {
            event.data = value;
        } else {
            continue;
        }
        any = true;
    }
    if (event.data) {
        event.message = JSON.parse(event.data) as T;
    }
    return any ? event : undefined;
}

/** The message of one event block, or undefined for a block without one (a comment, a retry, a priming event). */
function messageOf<T>(block: string): T | undefined {
    return eventOf<T>(block)?.message;
}

/** Every event of a complete SSE body, in order. */
export function parseSseEvents<T = Record<string, unknown>>(body: string): SseEvent<T>[] {
    return body
        .split('\n\n')
        .map(block => eventOf<T>(block))
        .filter((event): event is SseEvent<T> => event !== undefined);
}

/** Every message of a complete SSE body. Throws on a data line that is not JSON. */
export function parseSse<T = Record<string, unknown>>(body: string): T[] {
    return body
        .split('\n\n')
        .map(block => messageOf<T>(block))
        .filter((message): message is T => message !== undefined);
}

/**
 * Hands each message of a stream to `onMessage` as soon as its event is complete, however the
 * chunks fall. push() throws what parsing or `onMessage` throws, so a caller on 'data' events
 * fails loudly while stream errors stay with the stream.
 */
export class SseSplitter<T = Record<string, unknown>> {
    private buffer = '';
    private readonly decoder = new TextDecoder();

    constructor(
        private readonly onMessage: (message: T) => void,
        /** Every event, priming and retry blocks included, before its message goes to onMessage. */
        private readonly onEvent?: (event: SseEvent<T>) => void,
    ) {}

    push(chunk: Uint8Array | string): void {
        this.buffer += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
        let end = this.buffer.indexOf('\n\n');
        while (end >= 0) {
            const block = this.buffer.slice(0, end);
            this.buffer = this.buffer.slice(end + 2);
            this.deliver(block);
            end = this.buffer.indexOf('\n\n');
        }
    }

    /** The stream ended: like parseSse, a last event without its blank line still counts. */
    end(): void {
        const rest = this.buffer + this.decoder.decode();
        this.buffer = '';
        this.deliver(rest);
    }

    private deliver(block: string): void {
        const event = eventOf<T>(block);
        if (event !== undefined) {
            this.onEvent?.(event);
        }
        if (event?.message !== undefined) {
            this.onMessage(event.message);
        }
    }
}

/** Reads a whole stream (a fetch body) through an SseSplitter; rejects when the stream breaks, e.g. on abort. */
export async function readSse<T = Record<string, unknown>>(chunks: AsyncIterable<Uint8Array | string>, onMessage: (message: T) => void): Promise<void> {
    const splitter = new SseSplitter<T>(onMessage);
    for await (const chunk of chunks) {
        splitter.push(chunk);
    }
    splitter.end();
}
