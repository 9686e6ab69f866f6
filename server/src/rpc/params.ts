import { invalidParams } from './errors.js';

/** Small readers for request params that fail with a -32602 naming the field. */
export function optionalObject(params: Record<string, unknown> | undefined, field: string): Record<string, unknown> | undefined {
    const value = params?.[field];
    if (value === undefined) {
        return undefined;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw invalidParams(`${field} must be an object`);
    }
    return value as Record<string, unknown>;
}

export function requireString(params: Record<string, unknown> | undefined, field: string): string {
    const value = params?.[field];
    if (typeof value !== 'string') {
        throw invalidParams(`${field} must be a string`);
    }
    return value;
}

export function optionalString(params: Record<string, unknown> | undefined, field: string): string | undefined {
    const value = params?.[field];
    if (value !== undefined && typeof value !== 'string') {
        throw invalidParams(`${field} must be a string`);
    }
    return value;
}

/**
 * The longest string progress token accepted, in UTF-8 bytes. A task keeps its token for its whole
 * retention and repeats it in every progress notification: an unbounded one multiplied memory and
 * traffic. Clients use short ids (the SDK a number, VS Code a counter), far below this.
 */
export const MAX_PROGRESS_TOKEN_BYTES = 256;

/**
 * Whether a tools/call came from a chat conversation: its `_meta` names one, as VS Code's MCP
 * client does (`vscode.conversationId`) when a chat turn calls the tool. That client then asks the
 * task's questions in the chat, not in a notification; the editor's sidebar leads there.
 */
export function fromChat(params: Record<string, unknown> | undefined): boolean {
    const id = optionalObject(params, '_meta')?.['vscode.conversationId'];
    return typeof id === 'string' && id !== '';
}

export function progressTokenOf(params: Record<string, unknown> | undefined): string | number | undefined {
    const token = optionalObject(params, '_meta')?.progressToken;
    if (typeof token === 'string') {
        // A UTF-16 unit is at most 3 UTF-8 bytes: short tokens need no byte count.
        if (token.length * 3 > MAX_PROGRESS_TOKEN_BYTES && Buffer.byteLength(token) > MAX_PROGRESS_TOKEN_BYTES) {
            throw invalidParams(`_meta.progressToken must be at most ${MAX_PROGRESS_TOKEN_BYTES} bytes (UTF-8)`, { limit: MAX_PROGRESS_TOKEN_BYTES });
        }
        return token;
    }
    return typeof token === 'number' ? token : undefined;
}
