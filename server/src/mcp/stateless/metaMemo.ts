import { randomBytes } from 'node:crypto';
import { decodeFrame, type Decoded } from '../../rpc/messages.js';
import { META_PROTOCOL_VERSION } from '../../contract.js';


/** Misses in a row after which a connection's lines are no longer searched (a client whose `_meta` varies). */
const GIVE_UP_AFTER = 16;

/**
 * Stands in for the remembered `_meta` while the rest of a line is parsed; no client can guess it
 * (96 random bits). Short, because every character of it is parsed on every line.
 */
const PLACEHOLDER = randomBytes(12).toString('base64url');
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER);
const META_KEY = '"_meta":';

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
        const text = this.text;
        if (text !== undefined) {
            // Clients write _meta first among the params, or at least before any other "_meta":
            // so the first such key is looked at, then compared (a search for the long text itself
            // costs more than the rest of this together). Which object holds that key shows after
            // parsing: the placeholder must turn up as params._meta, or nothing is taken.
            const at = line.indexOf(META_KEY) + META_KEY.length;
            // slice-and-compare: startsWith with a position was the slowest step of all (measured).
            if (at >= META_KEY.length && line.slice(at, at + text.length) === text) {
                const decoded = decodeFrame(line.slice(0, at) + PLACEHOLDER_JSON + line.slice(at + text.length));
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
        if (text !== this.text && line.includes(`"_meta":${text}`)) {
            this.text = text;
            // A copy is frozen, so this request's own params stay as parsed.
            this.value = deepFreeze(JSON.parse(text) as Record<string, unknown>);
        }
        return decoded;
    }
}
