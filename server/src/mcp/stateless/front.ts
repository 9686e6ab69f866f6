import type { JsonRpcRequest } from '../../rpc/messages.js';
import type { RequestAbort } from '../../rpc/requestAbort.js';
import type { Transport } from '../../rpc/transport.js';
import type { ClientIdentity } from '../../tasks/hub.js';
import type { McpServices, Result } from '../context.js';
import { statelessRequest } from '../router.js';
import { checkVersion, readEnvelope, type Envelope } from './envelope.js';

/**
 * Serves one 2026-07-28 request, whatever carried it: reads its `_meta` (-32602), lets the
 * transport check its headers against it (HTTP: -32020), checks the version (-32022), and runs the
 * method (-32601 for one this revision lacks). Throws RpcErrors for the caller to send.
 */
export function serveStateless(
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
    return statelessRequest(services, callerOf(identity, envelope.clientName), envelope, request, reply, abort);
}

/**
 * The 2026-07-28 side of one pipe (stdio). Its client sends the same `_meta` on every request, and
 * the transport hands them all one frozen object (MetaMemo): once that object has passed the
 * checks, a request carrying it is known to be stateless, its envelope and caller are known, and
 * it goes straight to its method (the fast path saves reading and checking the envelope per request).
 */
export class StatelessPipe {
    /** The last frozen `_meta` that passed the checks, with what it gave. */
    private known?: { meta: unknown; envelope: Envelope; caller: ClientIdentity };

    constructor(
        private readonly services: McpServices,
        private readonly identity: ClientIdentity,
    ) {}

    /** Whether the request carries the `_meta` that passed last time (so revisionOf would say "stateless"). */
    readonly knows = (request: JsonRpcRequest): boolean => this.known !== undefined && request.params?._meta === this.known.meta;

    readonly serve = (request: JsonRpcRequest, reply: Transport, abort: RequestAbort): Result => {
        let known = this.known;
        if (known === undefined || request.params?._meta !== known.meta) {
            const envelope = readEnvelope(request.params);
            checkVersion(envelope);
            known = { meta: request.params!._meta, envelope, caller: callerOf(this.identity, envelope.clientName) };
            // Only a frozen _meta (readEnvelope made sure it is an object) is the same next time.
            this.known = Object.isFrozen(known.meta) ? known : undefined;
        }
        return statelessRequest(this.services, known.caller, known.envelope, request, reply, abort);
    };
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
