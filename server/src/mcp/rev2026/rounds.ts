import type { Clock } from '../../util/clock.js';
import { errorMessage, type Logger } from '../../util/log.js';
import { invalidParams, RpcError } from '../../rpc/errors.js';
import { optionalObject, optionalString } from '../../rpc/params.js';
import type { RequestAbort } from '../../rpc/requestAbort.js';
import type { Transport } from '../../rpc/transport.js';
import { parseCreateMessageResult, parseElicitResult } from '../../tasks/inputReplies.js';
import type { InputRequest } from '../../tasks/inputRequests.js';
import { textResult, type CallToolResult, type ToolContext, type ToolDefinition } from '../../tools/types.js';
import { CallContext } from '../callContext.js';
import { missingCapability, type Envelope } from './envelope.js';
import { digest, REQUEST_STATE_TTL_MS, type PausedCall, type RequestStates } from './requestState.js';

/** The client capability an input request needs. */
const CAPABILITY_OF: Record<string, string> = {
    'elicitation/create': 'elicitation',
    'sampling/createMessage': 'sampling',
    'roots/list': 'roots',
};

/** One tools/call of a 2026-07-28 client that may pause for input (SEP-2322). */
export interface PausableCall {
    tool: ToolDefinition;
    args: Record<string, unknown>;
    params: Record<string, unknown> | undefined;
    envelope: Envelope;
    clientKey: string;
    states: RequestStates;
    log: Logger;
    /** Read only when a requestState is checked or issued: a call that never pauses needs no time. */
    clock: Clock;
    progressToken?: string | number;
}

const NO_ANSWERS: Record<string, unknown> = Object.freeze({});

/** The answers a retry brings: those of earlier rounds, from a state that must check out, and this round's. */
function answersOf(call: PausableCall): Record<string, unknown> {
    // A first call (the common case) carries neither: nothing to read or allocate.
    if (call.params === undefined || (call.params.requestState === undefined && call.params.inputResponses === undefined)) {
        return NO_ANSWERS;
    }
    const token = optionalString(call.params, 'requestState');
    const responses = optionalObject(call.params, 'inputResponses') ?? {};
    if (token === undefined) {
        // A first-round answer with no state: the client's own answers, taken by the keys the tool asks.
        return Object.fromEntries(Object.entries(responses).filter(([, answer]) => typeof answer === 'object' && answer !== null && !Array.isArray(answer)));
    }
    const state = call.states.open(token);
    if (!state || state.tool !== call.tool.name || state.args !== digest(call.args) || state.caller !== digest(call.clientKey) || !(call.clock.now() - state.issued < REQUEST_STATE_TTL_MS)) {
        throw invalidParams('requestState is not valid for this call: it was altered, has expired, or was issued for another call or client');
    }
    const answers = { ...state.answers };
    // Only what the last round asked for is taken; anything else is ignored (SEP-2322).
    for (const key of state.asked) {
        const answer = responses[key];
        if (typeof answer === 'object' && answer !== null && !Array.isArray(answer)) {
            answers[key] = answer;
        }
    }
    return answers;
}

/**
 * One round of a paused call: questions with an answer in hand are answered at once; the others
 * are collected (those asked in the same turn come together) and end the round.
 */
class InputRound {
    readonly asked = new Map<string, InputRequest>();
    /** Called once, on the turn after the first unanswered question. */
    onEnd?: () => void;
    private sequence = 0;

    constructor(
        readonly answers: Record<string, unknown>,
        private readonly capabilities: Record<string, unknown>,
        private readonly toolName: string,
    ) {}

    /** Keys for questions a tool asks through ctx.elicit / ctx.createMessage: the same on every run of the call. */
    nextKey(capability: string): string {
        return `${capability}-${++this.sequence}`;
    }

    readonly ask = (requests: Record<string, InputRequest>): Promise<Record<string, unknown>> => {
        const missing = Object.entries(requests).filter(([key]) => this.answers[key] === undefined);
        if (missing.length === 0) {
            try {
                return Promise.resolve(Object.fromEntries(Object.entries(requests).map(([key, request]) => [key, checkedAnswer(request.method, this.answers[key])])));
            } catch (err) {
                return Promise.reject(err);
            }
        }
        for (const [, request] of missing) {
            const capability = CAPABILITY_OF[request.method];
            if (capability !== undefined && this.capabilities[capability] === undefined) {
                return Promise.reject(missingCapability(`Tool ${this.toolName} needs the ${capability} capability, which the request did not declare`, { [capability]: {} }));
            }
        }
        if (this.asked.size === 0) {
            setImmediate(() => this.onEnd?.());
        }
        for (const [key, request] of missing) {
            this.asked.set(key, request);
        }
        // Never settles: the round ends instead, and the retry runs the tool again.
        return new Promise(() => {});
    };
}

/**
 * Runs `work` for one round of a call: its value, or the InputRequiredResult that ends the round
 * when it asks something not answered yet. The requestState carries the answers so far, signed;
 * the retry runs `work` again from the start, answering its first questions from it. So what a
 * tool does before its questions must be repeatable (ours ask first). The request's own abort
 * stops the work, also when the round ends (the request is answered then: nothing else uses it).
 */
export async function inRound<T>(call: PausableCall, work: (round: InputRound) => Promise<T>, abort: RequestAbort): Promise<{ value: T } | { inputRequired: Record<string, unknown> }> {
    const round = new InputRound(answersOf(call), call.envelope.capabilities, call.tool.name);
    // One promise for the work or the end of the round, whichever comes first.
    const value = await new Promise<T | undefined>((resolve, reject) => {
        round.onEnd = () => resolve(undefined);
        try {
            work(round).then(resolve, reject);
        } catch (err) {
            reject(err);
        }
    });
    if (round.asked.size === 0 || value !== undefined) {
        return { value: value as T };
    }
    return { inputRequired: endRound(call, round, abort) };
}

/** The InputRequiredResult of a round that asked something not answered yet; the request's work stops. */
function endRound(call: PausableCall, round: InputRound, abort: RequestAbort): Record<string, unknown> {
    abort.abort(new Error('Waiting for input'));
    const state: PausedCall = { tool: call.tool.name, args: digest(call.args), caller: digest(call.clientKey), answers: round.answers, asked: [...round.asked.keys()], issued: call.clock.now() };
    return { resultType: 'input_required', inputRequests: Object.fromEntries(round.asked), requestState: call.states.seal(state) };
}

/** Runs the call's tool in its round's context (the deferral hook wraps it: defer.ts). */
export type StartCall = (round: RoundCallContext) => Promise<CallToolResult>;

/**
 * A plain tools/call of a 2026-07-28 client: the tool runs in the request, pausing for input as
 * SEP-2322 describes. As inRound, but the round exists only once the tool asks: a tool that never
 * does (greet) costs one context and one promise. Not an async function: each await
 * and each async return is a microtask hop more per call. A bad requestState throws before the tool runs.
 */
export function runPlainCall(call: PausableCall, reply: Transport, abort: RequestAbort, start?: StartCall): Promise<Record<string, unknown>> {
    const ctx = new RoundCallContext(call, answersOf(call), abort, reply);
    // Settles with the tool's result, or with nothing when the round ends on an unanswered question.
    // A throw from run() (not a rejection) rejects it too: that is how an executor behaves.
    return new Promise<CallToolResult | undefined>((resolve, reject) => {
        ctx.endRound = resolve;
        (start ? start(ctx) : call.tool.run!(call.args, ctx)).then(resolve, reject);
    }).then(
        value => {
            const round = ctx.round;
            if (round === undefined || round.asked.size === 0 || value !== undefined) {
                return { resultType: 'complete', ...value };
            }
            return endRound(call, round, abort);
        },
        (err: unknown) => {
            if (err instanceof RpcError) {
                throw err;
            }
            return { resultType: 'complete', ...textResult(`Tool ${call.tool.name} failed: ${errorMessage(err)}`, true) };
        },
    );
}

/** How a plain 2026-07-28 call asks: each question goes into the call's round (made on the first). */
export class RoundCallContext extends CallContext {
    protected readonly notATask = '';
    /** Created when the tool first asks (or reads `input`); undefined for a tool that never does. */
    round?: InputRound;
    /** Settles the call's promise with no value: the round ended on a question not answered yet. */
    endRound?: (value: undefined) => void;

    constructor(
        private readonly call: PausableCall,
        private readonly answers: Record<string, unknown>,
        abort: RequestAbort,
        reply: Transport,
    ) {
        super(abort, call.log, reply, call.progressToken, call.clientKey);
    }

    get input(): NonNullable<ToolContext['input']> {
        return this.openRound().ask;
    }

    get clientCapabilities(): Record<string, unknown> {
        return this.call.envelope.capabilities;
    }

    /** It asked something not answered yet: the call answers input_required this turn. */
    get endingRound(): boolean {
        return this.round !== undefined && this.round.asked.size > 0;
    }

    async elicit(params: Parameters<ToolContext['elicit']>[0]) {
        return parseAnswer(parseElicitResult, await this.one('elicitation', 'elicitation/create', params));
    }

    async createMessage(params: Parameters<ToolContext['createMessage']>[0]) {
        return parseAnswer(parseCreateMessageResult, await this.one('sampling', 'sampling/createMessage', params));
    }

    private openRound(): InputRound {
        if (this.round === undefined) {
            const round = new InputRound(this.answers, this.call.envelope.capabilities, this.call.tool.name);
            round.onEnd = () => this.endRound?.(undefined);
            this.round = round;
        }
        return this.round;
    }

    private async one(capability: string, method: string, params: object): Promise<unknown> {
        const round = this.openRound();
        const key = round.nextKey(capability);
        return (await round.ask({ [key]: { method, params: params as Record<string, unknown> } }))[key];
    }
}

/** An answer of the shape its request's method returns (ElicitResult, CreateMessageResult, ListRootsResult); -32602 otherwise. */
function checkedAnswer(method: string, answer: unknown): unknown {
    switch (method) {
        case 'elicitation/create':
            return parseAnswer(parseElicitResult, answer);
        case 'sampling/createMessage':
            return parseAnswer(parseCreateMessageResult, answer);
        case 'roots/list':
            if (!Array.isArray((answer as { roots?: unknown }).roots)) {
                throw invalidParams('Invalid inputResponses: a roots/list answer needs a roots array');
            }
            return answer;
        default:
            return answer;
    }
}

/** A malformed answer is the client's error (-32602), not the tool's. */
function parseAnswer<T>(parse: (raw: unknown) => T, raw: unknown): T {
    try {
        return parse(raw);
    } catch (err) {
        throw invalidParams(`Invalid inputResponses: ${errorMessage(err)}`);
    }
}
