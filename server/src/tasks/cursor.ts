import { invalidParams } from '../rpc/errors.js';

const PREFIX = 'c1.';

/** Opaque to clients; carries the creation sequence of the last task of the previous page. */
export function encodeCursor(seq: number): string {
    return PREFIX + Buffer.from(String(seq)).toString('base64url');
}

export function decodeCursor(cursor: string): number {
    if (cursor.startsWith(PREFIX)) {
        const text = Buffer.from(cursor.slice(PREFIX.length), 'base64url').toString();
        if (/^\d{1,15}$/.test(text)) {
            return Number(text);
        }
    }
    throw invalidParams('Invalid cursor');
}
