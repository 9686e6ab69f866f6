import { randomBytes } from 'node:crypto';

/** 128 bits from the OS CSPRNG: task ids double as bearer handles, so they must be unguessable. */
export function newTaskId(): string {
    return randomBytes(16).toString('base64url');
}

export function newSecret(bytes = 32): string {
    return randomBytes(bytes).toString('base64url');
}
