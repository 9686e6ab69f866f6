import { redactor, secretValues } from '../commands/secrets.js';
import { RpcError } from '../rpc/errors.js';
import type { CallToolResult } from '../tools/types.js';
import type { DownstreamSpec } from './config.js';

/**
 * The credentials a wrap configuration holds: each HTTP server's header values (a whole
 * `Bearer …` and the part after its scheme), its URL's password and query values (an API key in
 * `?key=…`). They show as `***` wherever the server could print them: its log, command tools'
 * output, and what the gateway hands a model (errors, tool results).
 */
export function wrapSecrets(specs: readonly DownstreamSpec[]): string[] {
    const values: string[] = [];
    for (const spec of specs) {
        if (spec.kind !== 'http') {
            continue;
        }
        for (const value of Object.values(spec.headers)) {
            values.push(value, value.replace(/^\S+\s+/, ''));
        }
        try {
            const url = new URL(spec.url);
            values.push(url.password, decodeURIComponent(url.password));
            for (const [, value] of url.searchParams) {
                values.push(value, encodeURIComponent(value));
            }
        } catch {
            // config.ts refuses a URL it cannot read: there is none here.
        }
    }
    // Short values (a "1" in ?v=1) would blank out ordinary text; secretValues leaves them out.
    return secretValues({}, {}, values.filter(Boolean));
}

/** `redact` applied to a line of the text a wrapped server's credentials may show up in; identity when there are none. */
export function wrapRedactor(specs: readonly DownstreamSpec[]): ((text: string) => string) | undefined {
    const secrets = wrapSecrets(specs);
    return secrets.length === 0 ? undefined : redactor(secrets);
}

/** A wrapped tool's result with its text and structured content redacted. */
export function redactResult(result: CallToolResult, redact: (text: string) => string): CallToolResult {
    const content = result.content?.map(item => (item.type === 'text' ? { ...item, text: redact(item.text) } : item));
    const structured = result.structuredContent === undefined ? undefined : JSON.stringify(result.structuredContent);
    const redacted = structured === undefined ? undefined : redact(structured);
    const out: CallToolResult = { ...result, ...(content ? { content } : {}) };
    if (redacted !== undefined && redacted !== structured) {
        try {
            out.structuredContent = JSON.parse(redacted) as Record<string, unknown>;
        } catch {
            // A secret that cut through the JSON's syntax: the text content carries the result without it.
            delete out.structuredContent;
        }
    }
    return out;
}

/** An error of a wrapped call, its message redacted (an RpcError keeps its code and data). */
export function redactError(err: unknown, redact: (text: string) => string): unknown {
    if (err instanceof RpcError) {
        return new RpcError(err.code, redact(err.message), err.data);
    }
    if (err instanceof Error) {
        const message = redact(err.message);
        return message === err.message ? err : new Error(message, { cause: err });
    }
    return err;
}
