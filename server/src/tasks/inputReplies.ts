import { z } from 'zod';
import type { CreateMessageResult, ElicitResult } from '../mcpTypes.js';

/**
 * What the server accepts as a client's answer to its elicitation and sampling requests (MCP
 * 2025-11-25 `ElicitResult` and `CreateMessageResult`). Our own, on zod, so the published package
 * needs no MCP SDK at run time; unknown fields pass through, as the spec allows.
 */
const meta = z.record(z.string(), z.unknown()).optional();

const elicitResult = z.looseObject({
    _meta: meta,
    action: z.enum(['accept', 'decline', 'cancel']),
    // Some clients send null for "no content" on decline or cancel.
    content: z.preprocess(value => (value === null ? undefined : value), z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional()),
});

const textContent = z.looseObject({ type: z.literal('text'), text: z.string(), _meta: meta });
const mediaContent = (type: 'image' | 'audio') => z.looseObject({ type: z.literal(type), data: z.string(), mimeType: z.string(), _meta: meta });
const samplingContent = z.discriminatedUnion('type', [textContent, mediaContent('image'), mediaContent('audio')]);

const createMessageResult = z.looseObject({
    _meta: meta,
    model: z.string(),
    stopReason: z.string().optional(),
    role: z.enum(['user', 'assistant']),
    content: samplingContent,
});

function parse<T>(schema: z.ZodType, raw: unknown, method: string): T {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
        throw new Error(`The client's answer to ${method} is malformed: ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}`);
    }
    return parsed.data as T;
}

export const parseElicitResult = (raw: unknown): ElicitResult => parse(elicitResult, raw, 'elicitation/create');
export const parseCreateMessageResult = (raw: unknown): CreateMessageResult => parse(createMessageResult, raw, 'sampling/createMessage');
