import { randomFillSync } from 'node:crypto';

export { newSecret } from '../contract.js';

/** Task ids drawn per batch: one call into the CSPRNG per 256 ids (a call per id cost ~5 µs). */
const IDS_PER_BATCH = 256;
const ID_BYTES = 16;
const batch = Buffer.alloc(IDS_PER_BATCH * ID_BYTES);
let nextId = IDS_PER_BATCH;

/**
 * 128 bits from the OS CSPRNG: task ids double as bearer handles, so they must be unguessable.
 * Every byte is used once, as node:crypto's randomUUID() does with its own entropy cache.
 */
export function newTaskId(): string {
    if (nextId === IDS_PER_BATCH) {
        randomFillSync(batch);
        nextId = 0;
    }
    const start = ID_BYTES * nextId++;
    return batch.toString('base64url', start, start + ID_BYTES);
}
