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
    const caller = envelope.clientName === undefined || identity.clientName === envelope.clientName ? identity : { ...identity, clientName: envelope.clientName };
    return handler({ id: request.id, envelope, identity: caller, services }, request.params, reply, abort);
}
