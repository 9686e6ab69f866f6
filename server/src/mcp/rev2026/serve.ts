import type { JsonRpcRequest } from '../../rpc/messages.js';
import type { RequestAbort } from '../../rpc/requestAbort.js';
import type { Transport } from '../../rpc/transport.js';
import type { ClientIdentity } from '../../tasks/hub.js';
import type { McpServices, Result } from '../context.js';
import { request2026 } from '../router.js';
import { checkVersion, readEnvelope, type Envelope } from './envelope.js';

/**
 * Serves one 2026-07-28 request that came alone (HTTP; a pipe's go through its Pipe2026): reads
 * its `_meta` (-32602), lets the transport check its headers against it (HTTP: -32020), checks the
 * version (-32022), and runs the method (-32601 for one this revision lacks). Throws RpcErrors for
 * the caller to send.
 */
export function serve2026(
    services: McpServices,
    identity: ClientIdentity,
    request: JsonRpcRequest,
    reply: Transport,
    abort: RequestAbort,
    checkHeaders?: (envelope: Envelope) => void,
): Result {
    const envelope = readEnvelope(request.params);
    checkHeaders?.(envelope);
    checkVersion(envelope);
    return request2026(services, callerOf(identity, envelope.clientName), envelope, request, reply, abort);
}

/** The last named form of each identity: a client sends the same name on every request. */
const named = new WeakMap<ClientIdentity, ClientIdentity>();

/** The identity with the client name the request's `_meta` gives (its tasks show it), built once per name. */
export function callerOf(identity: ClientIdentity, clientName: string | undefined): ClientIdentity {
    if (clientName === undefined || identity.clientName === clientName) {
        return identity;
    }
    const last = named.get(identity);
    if (last !== undefined && last.clientName === clientName && last.clientKey === identity.clientKey && last.isOwner === identity.isOwner) {
        return last;
    }
    const caller = { ...identity, clientName };
    named.set(identity, caller);
    return caller;
}
