import { INPUT_REQUESTS_META_KEY, Methods } from '../contract.js';
import { invalidParams, methodNotFound } from '../rpc/errors.js';
import { optionalObject, requireString } from '../rpc/params.js';
import { toWireTask } from '../tasks/wire.js';
import type { McpSession } from './session.js';

type Params = Record<string, unknown> | undefined;

/**
 * `tasks/get` in a 2025-11-25 session. The owner (the editor) also sees a 2026-07-28 client's
 * task's open inputRequests, under `_meta[INPUT_REQUESTS_META_KEY]`, so that it can answer them
 * as it answers the elicitation of a 2025-11-25 task; other clients get the spec's Task.
 */
export async function getTask(session: McpSession, params: Params): Promise<Record<string, unknown>> {
    const { runtime, tools } = session.services;
    const record = await runtime.get(session.identity, requireString(params, 'taskId'));
    if (!session.identity.isOwner) {
        return toWireTask(record);
    }
    const task = toWireTask(record, tools);
    if (record.status === 'input_required') {
        const { requests } = await runtime.inputs.open(record.taskId, true);
        if (requests && Object.keys(requests).length > 0) {
            task._meta = { ...(task._meta as Record<string, unknown> | undefined), [INPUT_REQUESTS_META_KEY]: requests };
        }
    }
    return task;
}

/**
 * The owner answers a 2026-07-28 task's inputRequests, as its client would with `tasks/update`:
 * keys not open are ignored (SEP-2663). Not a 2025-11-25 method: any other client gets -32601,
 * as before.
 */
export async function ownerUpdateTask(session: McpSession, params: Params): Promise<Record<string, unknown>> {
    if (!session.identity.isOwner) {
        throw methodNotFound(`Method not found: ${Methods.tasksUpdate}`);
    }
    const taskId = requireString(params, 'taskId');
    const responses = optionalObject(params, 'inputResponses');
    if (!responses) {
        throw invalidParams('inputResponses must be an object of answers keyed by the inputRequests keys');
    }
    const { runtime } = session.services;
    await runtime.get(session.identity, taskId);
    await runtime.inputs.answer(taskId, responses);
    return {};
}
