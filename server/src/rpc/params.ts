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

export function progressTokenOf(params: Record<string, unknown> | undefined): string | number | undefined {
    const token = optionalObject(params, '_meta')?.progressToken;
    return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}
