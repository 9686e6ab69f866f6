// A small reader for text/event-stream bodies (the WHATWG "server-sent events" format): what the
// owner connection needs of it, without a parser package in the bundle.

export interface SseEvent {
    /** The event type; "message" when the stream names none. */
    event: string;
    data: string;
    id?: string;
}

/**
 * Yields the events of an SSE body as they complete. Comment lines (keep-alives) are skipped; a
 * `retry:` field is handed to `onRetry`. Ends when the body ends; throws when reading it fails.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, onRetry?: (ms: number) => void): AsyncGenerator<SseEvent> {
    const decoder = new TextDecoder();
    let buffer = '';
    let data: string[] = [];
    let event = '';
    let id: string | undefined;
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = lineEnd(buffer)) >= 0) {
            const line = buffer.slice(0, end);
            // A CR at the very end may be the first half of CRLF: wait for the next chunk.
            const skip = buffer[end] === '\r' && buffer[end + 1] === '\n' ? 2 : 1;
            buffer = buffer.slice(end + skip);
            if (line === '') {
                if (data.length > 0) {
                    yield { event: event || 'message', data: data.join('\n'), id };
                }
                data = [];
                event = '';
                continue;
            }
            if (line.startsWith(':')) {
                continue;
            }
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
            if (field === 'data') {
                data.push(value);
            } else if (field === 'event') {
                event = value;
            } else if (field === 'id' && !value.includes('\0')) {
                id = value;
            } else if (field === 'retry' && /^\d+$/.test(value)) {
                onRetry?.(Number(value));
            }
        }
    }
}

/** The index of the first complete line's terminator, or -1 (a lone trailing CR is not yet complete). */
function lineEnd(buffer: string): number {
    for (let i = 0; i < buffer.length; i++) {
        const c = buffer[i];
        if (c === '\n') {
            return i;
        }
        if (c === '\r') {
            return i + 1 < buffer.length ? i : -1;
        }
    }
    return -1;
}
