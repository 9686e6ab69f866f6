import type { ServerResponse } from 'node:http';
import { Methods } from '../contract.js';
import type { JsonRpcMessage } from '../rpc/messages.js';

/**
 * What one SSE stream may hold for a reader that does not read (beyond the one chunk the socket is
 * already writing) before it is cut: with its progress dropped first, a stream still holding this
 * much is not being read.
 */
export const SSE_QUEUE_LIMIT_BYTES = 1024 * 1024;

export const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' } as const;

export function writable(res: ServerResponse): boolean {
    return !res.writableEnded && !res.destroyed;
}

/** `message` as one event without an id: a stream nobody can resume (a sessionless request's). */
export function frame(message: JsonRpcMessage): string {
    return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * The key under which a progress notification supersedes the last one queued: its token (the
 * client's progress), or its task (the owner's). Undefined for everything else, which is kept.
 */
export function progressKey(message: JsonRpcMessage): string | undefined {
    if (!('method' in message) || 'id' in message) {
        return undefined;
    }
    if (message.method === Methods.progress) {
        const token = message.params?.progressToken;
        return typeof token === 'number' ? `n${token}` : `s${String(token)}`;
    }
    if (message.method === Methods.ownerProgress) {
        return `t${String(message.params?.taskId)}`;
    }
    return undefined;
}

/**
 * The frames an SSE response has not written yet. It writes only while the socket keeps up (it
 * waits for 'drain' after a write the socket could not take at once); meanwhile frames queue, a
 * progress frame replacing the one queued with its key since (only the latest progress matters to
 * a reader that fell behind; one that keeps up gets every notification). A queue
 * over the limit drops its progress frames; still over, the stream is destroyed (`onOverflow`).
 */
export class SseOutbox {
    private frames: string[] = [];
    private keys: (string | undefined)[] = [];
    private slots?: Map<string, number>;
    private bytes = 0;
    private blocked = false;

    constructor(
        private readonly res: ServerResponse,
        private readonly limitBytes = SSE_QUEUE_LIMIT_BYTES,
    ) {}

    /** Characters queued and not yet handed to the socket. */
    get queued(): number {
        return this.bytes;
    }

    get empty(): boolean {
        return this.frames.length === 0;
    }

    /**
     * Queues one event (`text`, framed with or without an id); `key` is its progressKey, so a
     * newer progress may take its place. False when the queue overflowed and the stream was destroyed.
     */
    push(text: string, key: string | undefined): boolean {
        // Only while the socket is not draining: a reader that keeps up gets every notification.
        if (key !== undefined && this.blocked) {
            const slots = (this.slots ??= new Map());
            const slot = slots.get(key);
            if (slot !== undefined) {
                this.bytes += text.length - this.frames[slot]!.length;
                this.frames[slot] = text;
                return true;
            }
            slots.set(key, this.frames.length);
        }
        this.frames.push(text);
        this.keys.push(key);
        this.bytes += text.length;
        return this.bytes <= this.limitBytes || this.shed();
    }

    /** Hands what is queued to the socket, unless it is still writing the last chunk it could not take. */
    flush(): void {
        if (this.blocked || this.frames.length === 0) {
            return;
        }
        if (!this.res.write(this.take())) {
            this.blocked = true;
            this.res.once('drain', this.drained);
        }
    }

    /** Writes `text` (a priming event, replayed events) ahead of anything queued later. */
    write(text: string): void {
        this.frames.push(text);
        this.keys.push(undefined);
        this.bytes += text.length;
        this.flush();
    }

    /** Everything queued, then `last`, as the response's end. */
    end(last = ''): void {
        this.res.end(this.frames.length === 0 ? last : this.take() + last);
    }

    private take(): string {
        const text = this.frames.length === 1 ? this.frames[0]! : this.frames.join('');
        this.frames = [];
        this.keys = [];
        this.slots?.clear();
        this.bytes = 0;
        return text;
    }

    private readonly drained = (): void => {
        this.blocked = false;
        this.flush();
    };

    /** Over the limit: progress goes first; a queue still too large means the reader is not reading. */
    private shed(): boolean {
        if (this.keys.some(key => key !== undefined)) {
            const frames: string[] = [];
            const keys: (string | undefined)[] = [];
            let bytes = 0;
            for (let i = 0; i < this.frames.length; i++) {
                if (this.keys[i] === undefined) {
                    frames.push(this.frames[i]!);
                    keys.push(undefined);
                    bytes += this.frames[i]!.length;
                }
            }
            this.frames = frames;
            this.keys = keys;
            this.bytes = bytes;
            this.slots?.clear();
            if (bytes <= this.limitBytes) {
                return true;
            }
        }
        this.frames = [];
        this.keys = [];
        this.bytes = 0;
        this.res.destroy();
        return false;
    }
}
