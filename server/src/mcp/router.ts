import type { RpcConnection } from '../rpc/connection.js';
import type { JsonRpcMessage, JsonRpcRequest } from '../rpc/messages.js';
import type { RequestAbort } from '../rpc/requestAbort.js';
import type { Transport } from '../rpc/transport.js';
import type { ClientIdentity } from '../tasks/hub.js';
import type { McpServices, PushChannel, RequestContext, Result, RevisionName } from './context.js';
import { METHODS } from './methods.js';
import { revisionOf } from './revision.js';
import { SESSION_REVISION } from './session/adapter.js';
import { STATELESS_REVISION } from './stateless/adapter.js';
import { advertisedVersions, unsupportedVersion, type Envelope } from './stateless/envelope.js';
import type { StatelessPipe } from './stateless/front.js';
import { PROTOCOL_2025 } from '../contract.js';


/** Where a message came from, as far as choosing its revision goes. */
export interface Inbound {
    /** It belongs to a session: an HTTP Mcp-Session-Id, or a stdio pipe that has sent initialize. */
    inSession: boolean;
    /** The MCP-Protocol-Version header (HTTP). */
    headerVersion?: string;
    /** Whether the message carries the `_meta` that passed the 2026-07-28 checks last time on this pipe (StatelessPipe.knows). */
    knownStateless?: (request: JsonRpcRequest) => boolean;
}

/**
 * Which revision answers a message: the one decision, made once per message by whatever
 * transport received it (the rule itself is revisionOf's, docs/PROTOCOL.md).
 */
export function revisionFor(message: JsonRpcMessage, inbound: Inbound): RevisionName {
    if (inbound.inSession || !('method' in message)) {
        return 'session';
    }
    // Fast path: a stdio client repeats one frozen `_meta`; once it passed, no version is read again.
    if ('id' in message && inbound.knownStateless?.(message)) {
        return 'stateless';
    }
    return revisionOf(message.method, message.params, false, inbound.headerVersion);
}

/** Answers one request: its method's handler, once the revision has it and admits the call. */
export function dispatch(ctx: RequestContext, method: string, params: Record<string, unknown> | undefined): Result {
    const entry = METHODS.get(method) ?? ctx.services.methods?.get(method);
    if (entry === undefined || (entry.only !== undefined && entry.only !== ctx.revision.name)) {
        return ctx.revision.missing(method);
    }
    ctx.revision.admit(ctx, method);
    return entry.handler(ctx, params);
}

/** A request of a 2025-11-25 session (or a pipe that has not sent initialize yet). */
export function sessionRequest(services: McpServices, identity: ClientIdentity, push: PushChannel, request: JsonRpcRequest, reply: Transport, abort: RequestAbort): Result {
    if (services.statelessOnly) {
        // --no-session-protocol: a client that starts with initialize learns to speak 2026-07-28.
        throw unsupportedVersion(request.params?.protocolVersion ?? PROTOCOL_2025, advertisedVersions(true));
    }
    return dispatch({ id: request.id, identity, revision: SESSION_REVISION, services, reply, abort, push, envelope: undefined }, request.method, request.params);
}

/** A 2026-07-28 request whose `_meta` passed its checks. */
export function statelessRequest(services: McpServices, identity: ClientIdentity, envelope: Envelope, request: JsonRpcRequest, reply: Transport, abort: RequestAbort): Result {
    return dispatch({ id: request.id, identity, revision: STATELESS_REVISION, services, reply, abort, push: undefined, envelope }, request.method, request.params);
}

/**
 * The router of one pipe (stdio): the transport hands it every message it reads. A pipe that has
 * sent initialize is a 2025-11-25 session; before that, a request may be a 2026-07-28 one, served
 * by the pipe's stateless front. Both are the pipe's connection's requests (its ids, cancellation
 * and close), so the session and the stateless front stay peers that know nothing of each other.
 */
export function pipeRouter(session: { readonly rpc: RpcConnection; readonly protocolVersion?: string }, stateless: StatelessPipe, reply: Transport): (message: JsonRpcMessage) => void {
    const { rpc } = session;
    const inbound: Inbound = { inSession: false, knownStateless: stateless.knows };
    return message => {
        if (session.protocolVersion === undefined && 'method' in message && 'id' in message && revisionFor(message, inbound) === 'stateless') {
            void rpc.answer(message, reply, stateless.serve);
        } else {
            rpc.receive(message, reply);
        }
    };
}
