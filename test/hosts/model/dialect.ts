import type { ServerResponse } from 'node:http';
import type { Reply, RequestView } from './script.js';

/** One model API: how to tell its requests, read what the host sent, and answer in its format. */
export interface Dialect {
    name: string;
    /** True for the paths this API answers (`url` without the query string is `path`). */
    matches(path: string): boolean;
    /** Answers requests that are not a conversation turn (token counts); true when it did. */
    answerAside?(path: string, body: unknown, res: ServerResponse): boolean;
    read(body: unknown): RequestView;
    answer(path: string, body: unknown, reply: Reply, res: ServerResponse): void;
}

/** Starts a server-sent event stream. */
export function startSse(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

/** Writes one SSE event; `event` only for APIs that name their events. */
export function sse(res: ServerResponse, data: unknown, event?: string): void {
    res.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

export function json(res: ServerResponse, data: unknown, status = 200): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(data));
}

/** A request body field as an array of objects, whatever the host put there. */
export function list(value: unknown): Record<string, unknown>[] {
    return Array.isArray(value) ? value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null) : [];
}

export function field(body: unknown, key: string): unknown {
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[key] : undefined;
}
