import type { JsonRpcMessage } from './messages.js';

/** An immutable value and its JSON text, made once however many frames carry it. */
export class JsonText {
    private json?: string;
    /** The mark of the last object it was made the tail of (withJsonTail): the same for every poll. */
    tail?: JsonTail;

    /** `value`: never changed afterwards. */
    constructor(readonly value: object) {}

    get text(): string {
        return (this.json ??= JSON.stringify(this.value));
    }
}

/** Where an object keeps its pre-serialised last member: a symbol, which JSON.stringify skips. */
const JSON_TAIL = Symbol('jsonTail');

interface JsonTail {
    key: string;
    /** The key as JSON text. */
    keyJson: string;
    text: JsonText;
}

/**
 * Sets `object[key]` to `text.value` as its last member (the key must be new), and marks it so
 * that encodeFrame writes the member's JSON text as it is instead of serialising the value again
 * (a finished task's result, which each `tasks/get` poll answers with). The object stays a plain
 * one for everything else, which sees the value; JSON.stringify writes the same JSON from it.
 */
export function withJsonTail(object: Record<string, unknown>, key: string, text: JsonText): void {
    if (key in object) {
        throw new Error(`withJsonTail: ${key} is already a member (the pre-serialised one must come last)`);
    }
    object[key] = text.value;
    if (text.tail?.key !== key) {
        text.tail = { key, keyJson: JSON.stringify(key), text };
    }
    (object as Record<symbol, JsonTail>)[JSON_TAIL] = text.tail;
}

/**
 * A message's JSON text, as JSON.stringify writes it. A response whose result has a pre-serialised
 * last member (withJsonTail) is written around that member's text: the rest is serialised, the
 * member is not.
 */
export function encodeFrame(message: JsonRpcMessage): string {
    const result = 'result' in message ? message.result : undefined;
    const tail = result === undefined ? undefined : (result as Record<symbol, JsonTail | undefined>)[JSON_TAIL];
    if (tail === undefined || result![tail.key] !== tail.text.value || ('error' in message && message.error !== undefined)) {
        return JSON.stringify(message);
    }
    // The member left out of the rest (JSON.stringify skips undefined), then put back; setting it
    // rather than deleting it keeps the object's shape.
    result![tail.key] = undefined;
    let head: string;
    try {
        head = JSON.stringify(result);
    } finally {
        result![tail.key] = tail.text.value;
    }
    const open = head.length > 2 ? `${head.slice(0, -1)},` : '{';
    return `{"jsonrpc":"2.0","id":${JSON.stringify((message as { id: unknown }).id)},"result":${open}${tail.keyJson}:${tail.text.text}}}`;
}
