import { methodNotFound } from '../../rpc/errors.js';
import type { JsonRpcRequest } from '../../rpc/messages.js';
import type { RequestAbort } from '../../rpc/requestAbort.js';
import type { Transport } from '../../rpc/transport.js';
import type { ClientIdentity } from '../../tasks/hub.js';
import type { SessionServices } from '../session.js';
import { checkVersion, readEnvelope, type Envelope } from './envelope.js';
import { HANDLERS_2026_07_28 } from './handlers.js';

/**
 * Serves one 2026-07-28 request, whatever carried it: reads its `_meta` (-32602), lets the
 * transport check its headers against it (HTTP: -32020), checks the version (-32022), and runs the
 * method (-32601 for one this revision lacks). Throws RpcErrors for the caller to send.
 */
export function serveStateless(
    services: SessionServices,
    identity: ClientIdentity,
    request: JsonRpcRequest,
    reply: Transport,
    abort: RequestAbort,
    checkHeaders?: (envelope: Envelope) => void,
): Promise<Record<string, unknown>> | Record<string, unknown> {
    const envelope = readEnvelope(request.params);
    checkHeaders?.(envelope);
    checkVersion(envelope);
    const handler = HANDLERS_2026_07_28.get(request.method);
    if (!handler) {
        throw methodNotFound(`Method not found: ${request.method}`);
    }
    return handler({ id: request.id, envelope, identity: callerOf(identity, envelope.clientName), services }, request.params, reply, abort);
}

/** The last named form of each identity: a client sends the same name on every request. */
const named = new WeakMap<ClientIdentity, ClientIdentity>();

/** The identity with the client name the request's `_meta` gives (its tasks show it), built once per name. */
function callerOf(identity: ClientIdentity, clientName: string | undefined): ClientIdentity {
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
