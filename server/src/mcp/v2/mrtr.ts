import { errorMessage, type Logger } from '../../log.js';
import { invalidParams, RpcError } from '../../rpc/errors.js';
import { optionalObject, optionalString } from '../../rpc/params.js';
import { RequestAbort } from '../../rpc/requestAbort.js';
import type { Transport } from '../../rpc/transport.js';
import { parseCreateMessageResult, parseElicitResult } from '../../tasks/inputReplies.js';
import { SpawnError } from '../../tools/subtasks.js';
import { sleep, textResult, type CallToolResult, type ToolContext, type ToolDefinition } from '../../tools/types.js';
import { missingCapability, type Envelope } from './envelope.js';
import { digest, REQUEST_STATE_TTL_MS, type PausedCall, type RequestStates } from './requestState.js';

interface Asked {
    key: string;
    method: string;
    params: Record<string, unknown>;
}

export interface PlainCall {
    tool: ToolDefinition;
    args: Record<string, unknown>;
    params: Record<string, unknown> | undefined;
    envelope: Envelope;
    clientKey: string;
    states: RequestStates;
    log: Logger;
    now: number;
    progressToken?: string | number;
}

/** The answers a retry brings: those of earlier rounds, from a state that must check out, and this round's. */
function answersOf(call: PlainCall): Record<string, unknown> {
    const token = optionalString(call.params, 'requestState');
    if (token === undefined) {
        return {};
    }
    const state = call.states.open(token);
    if (!state || state.tool !== call.tool.name || state.args !== digest(call.args) || state.caller !== digest(call.clientKey) || !(call.now - state.issued < REQUEST_STATE_TTL_MS)) {
        throw invalidParams('requestState is not valid for this call: it was altered, has expired, or was issued for another call or client');
    }
    const answers = { ...state.answers };
    const responses = optionalObject(call.params, 'inputResponses') ?? {};
    // Only what the last round asked for is taken; anything else is ignored (SEP-2322).
    for (const key of state.asked) {
        if (responses[key] !== undefined) {
            answers[key] = responses[key];
        }
    }
    return answers;
}

/**
 * A plain tools/call of a 2026-07-28 client (SEP-2322, multi round-trip). The tool runs; when it
 * asks for input the answer is not in yet, the call ends with an InputRequiredResult whose
 * requestState carries the answers so far, and the retry runs the tool again from the start,
 * answering its first questions from that state. So a tool asked this way must be repeatable
 * up to its questions (ours are: they ask first). Questions asked together (Promise.all) come
 * in one round.
 */
export async function runPlainCall(call: PlainCall, reply: Transport, abort: RequestAbort): Promise<Record<string, unknown>> {
    const answers = answersOf(call);
    const asked: Asked[] = [];
    let endRound!: () => void;
    const roundOver = new Promise<undefined>(resolve => (endRound = () => resolve(undefined)));
    // The tool's own stop: the request's, or the end of this round.
    const work = new RequestAbort();
    const onAbort = () => work.abort(abort.signal.reason);
    abort.signal.addEventListener('abort', onAbort, { once: true });
    let sequence = 0;

    const ask = (capability: 'elicitation' | 'sampling', method: string, params: object): Promise<Record<string, unknown>> => {
        const key = `${capability}-${++sequence}`;
        if (answers[key] !== undefined) {
            return Promise.resolve(answers[key] as Record<string, unknown>);
        }
        if (call.envelope.capabilities[capability] === undefined) {
            throw missingCapability(`Tool ${call.tool.name} needs the ${capability} capability, which the request did not declare`, { [capability]: {} });
        }
        if (asked.length === 0) {
            setImmediate(endRound);
        }
        asked.push({ key, method, params: params as Record<string, unknown> });
        return new Promise(() => {});
    };
    const ctx: ToolContext = {
        get signal() {
            return work.signal;
        },
        sleep: ms => sleep(ms, work.signal),
        log: call.log,
        progress: (progress, total, message) => {
            if (call.progressToken !== undefined && !work.aborted) {
                reply.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: call.progressToken, progress, total, message } });
            }
        },
        elicit: params => parsed(async () => parseElicitResult(await ask('elicitation', 'elicitation/create', params))),
        createMessage: params => parsed(async () => parseCreateMessageResult(await ask('sampling', 'sampling/createMessage', params))),
        spawn: async toolName => {
            throw new SpawnError('not_a_task', `Cannot start sub-task ${toolName}: only a tool running as a task can start sub-tasks`);
        },
    };
    try {
        let running: Promise<CallToolResult>;
        try {
            running = call.tool.run!(call.args, ctx);
        } catch (err) {
            running = Promise.reject(err);
        }
        const result = await Promise.race([running, roundOver]);
        if (result === undefined) {
            work.abort(new Error('Waiting for input'));
            running.catch(() => undefined);
            const state: PausedCall = { tool: call.tool.name, args: digest(call.args), caller: digest(call.clientKey), answers, asked: asked.map(a => a.key), issued: call.now };
            return {
                resultType: 'input_required',
                inputRequests: Object.fromEntries(asked.map(a => [a.key, { method: a.method, params: a.params }])),
                requestState: call.states.seal(state),
            };
        }
        return { resultType: 'complete', ...result };
    } catch (err) {
        if (err instanceof RpcError) {
            throw err;
        }
        return { resultType: 'complete', ...textResult(`Tool ${call.tool.name} failed: ${errorMessage(err)}`, true) };
    } finally {
        abort.signal.removeEventListener('abort', onAbort);
    }
}

/** A malformed answer is the client's error (-32602), not the tool's. */
async function parsed<T>(read: () => Promise<T>): Promise<T> {
    try {
        return await read();
    } catch (err) {
        if (err instanceof RpcError) {
            throw err;
        }
        throw invalidParams(`Invalid inputResponses: ${errorMessage(err)}`);
    }
}
