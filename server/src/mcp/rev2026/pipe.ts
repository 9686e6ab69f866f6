import { randomBytes } from 'node:crypto';
import { decodeFrame, type Decoded, type JsonRpcRequest } from '../../rpc/messages.js';
import type { RequestAbort } from '../../rpc/requestAbort.js';
import type { Transport } from '../../rpc/transport.js';
import type { ClientIdentity } from '../../tasks/hub.js';
import { META_PROTOCOL_VERSION } from '../../contract.js';
import type { McpServices, Result } from '../context.js';
import { request2026 } from '../router.js';
import { checkVersion, readEnvelope, type Envelope } from './envelope.js';
import { callerOf } from './serve.js';

/** Misses in a row after which a pipe's lines are no longer searched (a client whose `_meta` varies). */
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

/** A pipe's client's `_meta`: its text, its parsed value, and what the checks gave once a request carrying it passed them. */
interface KnownMeta {
    readonly text: string;
    /** Frozen: every line that repeats the text is handed this one object. */
    readonly value: Record<string, unknown>;
    checked?: { readonly envelope: Envelope; readonly caller: ClientIdentity };
}

/**
 * The 2026-07-28 side of one pipe (stdio). Its client sends the same `_meta` (protocol version,
 * capabilities, client info) on every request, byte for byte, and reading it was the largest part
 * of what such a request costs: parsing it (JSON.parse of a greet line: about 1.2 µs without it,
 * 3 µs with it), then checking it. So the pipe keeps one record of the last such `_meta`: its text
 * and its parsed value, frozen, which every line that repeats the text is given in its place; and,
 * once a request carrying that value passed the checks, its envelope and caller. A request with
 * that value is then known to be 2026-07-28's (`knows`) and goes straight to its method.
 *
 * A line decodes to exactly what parsing it whole gives, except that `params._meta` is that
 * shared, frozen object (nothing changes a request's `_meta`) and comes last among the params' keys.
 */
export class Pipe2026 {
    private known?: KnownMeta;
    private misses = 0;

    constructor(
        private readonly services: McpServices,
        private readonly identity: ClientIdentity,
    ) {}

    /** One line of the pipe, as decodeFrame reads it but with the remembered `_meta` not parsed again. */
    readonly decode = (line: string): Decoded => {
        const known = this.known;
        if (known !== undefined) {
            // Clients write _meta first among the params, or at least before any other "_meta":
            // so the first such key is looked at, then compared (a search for the long text itself
            // costs more than the rest of this together). Which object holds that key shows after
            // parsing: the placeholder must turn up as params._meta, or nothing is taken.
            const { text } = known;
            const at = line.indexOf(META_KEY) + META_KEY.length;
            // slice-and-compare: startsWith with a position was the slowest step of all (measured).
            if (at >= META_KEY.length && line.slice(at, at + text.length) === text) {
                const decoded = decodeFrame(line.slice(0, at) + PLACEHOLDER_JSON + line.slice(at + text.length));
                const params = decoded.kind === 'request' || decoded.kind === 'notification' ? decoded.message.params : undefined;
                if (params?._meta === PLACEHOLDER) {
                    params._meta = known.value;
                    this.misses = 0;
                    return decoded;
                }
            }
        }
        return this.learn(line, decodeFrame(line));
    };

    /** Whether the request carries the `_meta` that passed the checks (so revisionOf would say "2026-07-28"). */
    readonly knows = (request: JsonRpcRequest): boolean => {
        const known = this.known;
        return known?.checked !== undefined && request.params?._meta === known.value;
    };

    /** Serves one 2026-07-28 request of the pipe: its `_meta` checked once (-32602, -32022), then its method. */
    readonly serve = (request: JsonRpcRequest, reply: Transport, abort: RequestAbort): Result => {
        const known = this.known;
        let checked = known !== undefined && request.params?._meta === known.value ? known.checked : undefined;
        if (checked === undefined) {
            const envelope = readEnvelope(request.params);
            checkVersion(envelope);
            checked = { envelope, caller: callerOf(this.identity, envelope.clientName) };
            // Only the shared value is the same object next time.
            if (known !== undefined && request.params!._meta === known.value) {
                known.checked = checked;
            }
        }
        return request2026(this.services, checked.caller, checked.envelope, request, reply, abort);
    };

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
        if (text !== this.known?.text && line.includes(`"_meta":${text}`)) {
            // A copy is frozen, so this request's own params stay as parsed; what the old one passed goes with it.
            this.known = { text, value: deepFreeze(JSON.parse(text) as Record<string, unknown>) };
        }
        return decoded;
    }
}
