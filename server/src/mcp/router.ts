import type { JsonRpcRequest } from '../rpc/messages.js';
import type { RequestAbort } from '../rpc/requestAbort.js';
import type { Transport } from '../rpc/transport.js';
import type { ClientIdentity } from '../tasks/hub.js';
import type { McpServices, PushChannel, RequestContext, Result } from './context.js';
import { METHODS } from './methods.js';
import { SESSION_REVISION } from './rev2025/adapter.js';
import { STATELESS_REVISION } from './rev2026/adapter.js';
import { advertisedVersions, unsupportedVersion, type Envelope } from './rev2026/envelope.js';
import { PROTOCOL_2025 } from '../contract.js';

/*
 * One request of either revision, to its method's handler (the one table, methods.ts). Both
 * revisions' entries call down to here: a 2025-11-25 session (rev2025/session.ts) and the
 * 2026-07-28 entry (rev2026/serve.ts, rev2026/pipe.ts). So it imports none of them; which
 * revision a message goes to is decided above them all, in dispatch.ts.
 */

/** Answers one request: its method's handler, once the revision has it and admits the call. */
function runMethod(ctx: RequestContext, method: string, params: Record<string, unknown> | undefined): Result {
    const entry = METHODS.get(method) ?? ctx.services.methods?.get(method);
    if (entry === undefined || (entry.only !== undefined && entry.only !== ctx.revision.name)) {
        return ctx.revision.missing(method);
    }
    ctx.revision.admit(ctx, method);
    return entry.handler(ctx, params);
}

/** A request of a 2025-11-25 session (or a pipe that has not sent initialize yet). */
export function sessionRequest(services: McpServices, identity: ClientIdentity, push: PushChannel, request: JsonRpcRequest, reply: Transport, abort: RequestAbort): Result {
    if (services.only2026) {
        // --no-session-protocol: a client that starts with initialize learns to speak 2026-07-28.
        throw unsupportedVersion(request.params?.protocolVersion ?? PROTOCOL_2025, advertisedVersions(true));
    }
    return runMethod({ id: request.id, identity, revision: SESSION_REVISION, services, reply, abort, push, envelope: undefined }, request.method, request.params);
}

/** A 2026-07-28 request whose `_meta` passed its checks. */
export function request2026(services: McpServices, identity: ClientIdentity, envelope: Envelope, request: JsonRpcRequest, reply: Transport, abort: RequestAbort): Result {
    return runMethod({ id: request.id, identity, revision: STATELESS_REVISION, services, reply, abort, push: undefined, envelope }, request.method, request.params);
}
