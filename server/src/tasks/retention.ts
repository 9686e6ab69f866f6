import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { NewTask } from './types.js';

/** Roughly what a task's record holds beyond its arguments and token (ids, dates, status). */
const RECORD_OVERHEAD = 300;

/**
 * A new task's share of its client's retained-bytes budget, in characters of JSON: its arguments
 * and progress token plus the record around them. Its outcome is added when it ends. Every store
 * measures the same way, so the flag means the same with either.
 */
export function retainedSize(input: NewTask): number {
    const token = input.progressToken;
    return RECORD_OVERHEAD + JSON.stringify(input.args).length + (typeof token === 'string' ? token.length : 0);
}

/** The -32000 of a client over its retention budget, naming the limit and its flag. */
export function retentionError(kind: 'tasks' | 'bytes', limit: number): RpcError {
    const message =
        kind === 'tasks'
            ? `Too many tasks retained for this client (limit ${limit}, --max-retained-tasks-per-client; finished tasks count until their ttl runs out); wait for some to expire, or ask a shorter ttl`
            : `Tasks retained for this client hold too much (limit ${limit} bytes, --max-retained-bytes-per-client; finished tasks count with their arguments and results until their ttl runs out); wait for some to expire, or ask a shorter ttl`;
    return new RpcError(ErrorCodes.LimitExceeded, message, { limit, kind: kind === 'tasks' ? 'retainedTasks' : 'retainedBytes' });
}
