import { ErrorCodes, RpcError } from '../rpc/errors.js';

/** The -32000 of a client over its retention budget, naming the limit and its flag. */
export function retentionError(kind: 'tasks' | 'bytes', limit: number): RpcError {
    const message =
        kind === 'tasks'
            ? `Too many tasks retained for this client (limit ${limit}, --max-retained-tasks-per-client; finished tasks count until their ttl runs out); wait for some to expire, or ask a shorter ttl`
            : `Tasks retained for this client hold too much (limit ${limit} bytes, --max-retained-bytes-per-client; finished tasks count with their arguments and results until their ttl runs out); wait for some to expire, or ask a shorter ttl`;
    return new RpcError(ErrorCodes.LimitExceeded, message, { limit, kind: kind === 'tasks' ? 'retainedTasks' : 'retainedBytes' });
}
