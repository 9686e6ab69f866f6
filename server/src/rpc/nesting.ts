// Limits on what a peer's message may hold, checked once when it is decoded. Everything the
// server does with a value afterwards (JSON.stringify, freezing a remembered `_meta`, schema
// validation, a Redis copy) walks it recursively: a value nested thousands of levels deep
// overflows the stack there, and on stdio that killed the process. Past these limits a message
// is answered with -32602 and nothing else happens.

/** Levels a message's params (or a response's result) may nest: far beyond any real schema or answer. */
export const MAX_DEPTH = 64;
/** Values (objects, arrays and leaves) a request's `_meta` may hold: it is copied and frozen per client, so kept small. */
export const MAX_META_VALUES = 1000;

/**
 * How many values `value` holds (objects, arrays and leaves), or Infinity when it nests deeper
 * than `levels` (an object or array is one level). The recursion stops at `levels`, so it cannot
 * overflow however deep the value is. One pass for both limits: it runs on every message
 * (about 0.4 µs for a 2026-07-28 tools/call; `for…in` was twice as fast as Object.keys here).
 */
export function measure(value: unknown, levels: number): number {
    if (typeof value !== 'object' || value === null) {
        return 1;
    }
    if (levels === 0) {
        return Infinity;
    }
    let count = 1;
    if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
            count += measure(value[i], levels - 1);
        }
    } else {
        for (const key in value) {
            count += measure((value as Record<string, unknown>)[key], levels - 1);
        }
    }
    return count;
}

/** Why a message's params (or a response's result or error) are refused, or undefined when they are within the limits. */
export function overLimits(body: unknown, isRequest: boolean): string | undefined {
    if (typeof body !== 'object' || body === null) {
        return undefined;
    }
    for (const key in body) {
        const count = measure((body as Record<string, unknown>)[key], MAX_DEPTH - 1);
        if (count === Infinity) {
            return `the message nests more than ${MAX_DEPTH} levels deep`;
        }
        if (isRequest && key === '_meta' && count > MAX_META_VALUES) {
            return `_meta holds more than ${MAX_META_VALUES} values`;
        }
    }
    return undefined;
}
