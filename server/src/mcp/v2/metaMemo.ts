import { randomUUID } from 'node:crypto';
import { decodeFrame, type Decoded } from '../../rpc/messages.js';
import { META_PROTOCOL_VERSION } from '../revision.js';

/** Misses in a row after which a connection's lines are no longer searched (a client whose `_meta` varies). */
const GIVE_UP_AFTER = 16;

/** Stands in for the remembered `_meta` while the rest of a line is parsed; no client can guess it. */
const PLACEHOLDER = `meta-memo:${randomUUID()}`;
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER);

function deepFreeze<T>(value: T): T {
    if (typeof value === 'object' && value !== null) {
        for (const child of Object.values(value)) {
            deepFreeze(child);
        }
        Object.freeze(value);
    }
    return value;
}

/**
 * A 2026-07-28 client sends the same `_meta` (protocol version, capabilities, client info) on
 * every request, byte for byte, and parsing it was the largest part of what reading such a request
 * costs over stdio (JSON.parse of a greet line: about 1.2 µs without it, 3 µs with it). So one
 * connection remembers the text of the last such `_meta` with its parsed value, frozen: a line that
 * repeats it is parsed with a placeholder in its place, then given the remembered value. A line
 * gets exactly what parsing it whole would give, except that `params._meta` is that shared, frozen
 * object (nothing changes a request's `_meta`) and comes last among the params' keys.
 */
export class MetaMemo {
    private text?: string;
    private value?: Record<string, unknown>;
    private misses = 0;

    decode(line: string): Decoded {
        if (this.text !== undefined) {
            const at = line.indexOf(this.text);
            // The remembered text as a whole value right after a "_meta" key; which object holds that
            // key shows after parsing (the placeholder must turn up as params._meta, or nothing is taken).
            if (at >= 8 && line.startsWith('"_meta":', at - 8)) {
                const decoded = decodeFrame(line.slice(0, at) + PLACEHOLDER_JSON + line.slice(at + this.text.length));
                const params = decoded.kind === 'request' || decoded.kind === 'notification' ? decoded.message.params : undefined;
                if (params?._meta === PLACEHOLDER) {
                    params._meta = this.value;
                    this.misses = 0;
                    return decoded;
                }
            }
        }
        return this.learn(line, decodeFrame(line));
    }

    /** Remembers a 2026-07-28 `_meta` the line carries, when its text is the line's own (a compact one). */
    private learn(line: string, decoded: Decoded): Decoded {
        if (this.misses >= GIVE_UP_AFTER || (decoded.kind !== 'request' && decoded.kind !== 'notification')) {
            return decoded;
        }
        const meta = decoded.message.params?._meta;
        if (typeof meta !== 'object' || meta === null || Array.isArray(meta) || !(META_PROTOCOL_VERSION in meta)) {
            return decoded;
        }
        this.misses++;
        const text = JSON.stringify(meta);
        if (line.includes(`"_meta":${text}`)) {
            this.text = text;
            // A copy is frozen, so this request's own params stay as parsed.
            this.value = deepFreeze(JSON.parse(text) as Record<string, unknown>);
        }
        return decoded;
    }
}
