/**
 * Server-sent events as the Streamable HTTP transport writes them: each event carries one
 * JSON-RPC message on its `data:` line. One parser for the raw clients of every suite.
 */

/** The message of one event block, or undefined for a block without data (a comment, a retry). */
function messageOf<T>(block: string): T | undefined {
    const data = block.split('\n').find(line => line.startsWith('data: '));
    return data === undefined ? undefined : (JSON.parse(data.slice(6)) as T);
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

    constructor(private readonly onMessage: (message: T) => void) {}

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
        const message = messageOf<T>(block);
        if (message !== undefined) {
            this.onMessage(message);
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
