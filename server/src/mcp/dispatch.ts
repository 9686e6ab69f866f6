import { answerRequest } from '../rpc/answer.js';
import type { RpcConnection } from '../rpc/connection.js';
import { errorResponse, type Decoded, type JsonRpcMessage, type JsonRpcRequest, type RequestId } from '../rpc/messages.js';
import type { RequestAbort } from '../rpc/requestAbort.js';
import type { Transport } from '../rpc/transport.js';
import type { ClientIdentity } from '../tasks/hub.js';
import type { McpServices, RevisionName, ToolCatalog } from './context.js';
import { requestedVersion, revisionOf } from './revision.js';
import type { McpSession } from './rev2025/session.js';
import { unsupportedVersion, type Envelope } from './rev2026/envelope.js';
import { serve2026 } from './rev2026/serve.js';
import { Pipe2026 } from './rev2026/pipe.js';
import { PROTOCOL_2026 } from '../contract.js';

/*
 * Dispatch: what a transport calls, and all it calls of the protocol (docs/DEVELOPING.md). It
 * decides which revision answers each message a transport received (revisionFor) and hands the
 * message to it: a 2025-11-25 session's connection, or the 2026-07-28 entry (rev2026/serve.ts). One entry per kind of
 * transport: a pipe (stdio) makes a PipeDispatch and gives it every line; HTTP gives dispatchPost
 * every POSTed message. Both revisions sit below this module and never import it.
 */

/** Where a message came from, as far as choosing its revision goes. */
export interface Inbound {
    /** It belongs to a session: an HTTP Mcp-Session-Id, or a stdio pipe that has sent initialize. */
    readonly inSession: boolean;
    /** The MCP-Protocol-Version header (HTTP). */
    readonly headerVersion?: string;
    /** Whether the message carries the `_meta` that passed the 2026-07-28 checks last time on this pipe (Pipe2026.knows). */
    readonly known2026?: (request: JsonRpcRequest) => boolean;
}

/**
 * Which revision answers a message: the one decision, made once per message, whichever transport
 * received it (the rule itself is revisionOf's, docs/PROTOCOL.md).
 */
export function revisionFor(message: JsonRpcMessage, inbound: Inbound): RevisionName {
    if (inbound.inSession || !('method' in message)) {
        return '2025-11-25';
    }
    // Fast path: a stdio client repeats one frozen `_meta`; once it passed, no version is read again.
    if ('id' in message && inbound.known2026?.(message)) {
        return '2026-07-28';
    }
    return revisionOf(message.method, message.params, false, inbound.headerVersion);
}

/**
 * The dispatch of one pipe (stdio): the transport reads each line with `decode` and hands what it
 * decoded to `receive`. A pipe that has sent initialize is a 2025-11-25 session; before that, a
 * request may be a 2026-07-28 one, served by the pipe's Pipe2026. Both are the pipe's
 * connection's requests (its ids, cancellation and close), so the session and the 2026-07-28 side
 * stay peers that know nothing of each other.
 */
export class PipeDispatch {
    /** The pipe's line reader: decodeFrame, but a 2026-07-28 client's repeated `_meta` is parsed once (Pipe2026). */
    readonly decode: (line: string) => Decoded;
    private readonly rpc: RpcConnection;
    private readonly pipe2026: Pipe2026;
    private readonly inbound: Inbound;

    constructor(
        private readonly session: Pick<McpSession, 'rpc' | 'protocolVersion' | 'services' | 'identity'>,
        private readonly reply: Transport,
    ) {
        this.rpc = session.rpc;
        this.pipe2026 = new Pipe2026(session.services, session.identity);
        this.decode = this.pipe2026.decode;
        this.inbound = { inSession: false, known2026: this.pipe2026.knows };
    }

    readonly receive = (message: JsonRpcMessage): void => {
        if (this.session.protocolVersion === undefined && 'method' in message && 'id' in message && revisionFor(message, this.inbound) === '2026-07-28') {
            void this.rpc.answer(message, this.reply, this.pipe2026.serve);
        } else {
            this.rpc.receive(message, this.reply);
        }
    };
}

/** What dispatch needs of the HTTP POST that carried a message (transports/mcpPost.ts). */
export interface HttpPost extends Inbound {
    /** 2025-11-25: the session the POST names (or the one its initialize begins) takes the message. */
    toSession(message: JsonRpcMessage): void;
    /** Ends a POST that gets no JSON-RPC answer: 202, or 400 with the error a notification gets. */
    end(status: 202 | 400, response?: JsonRpcMessage): void;
    /** A sessionless request's response stream on this POST, and its abort (the client closing the stream). */
    answerOn(id: RequestId): { reply: Transport; abort: RequestAbort };
    /** Who a sessionless request acts as: its credential's identity. */
    identity(): ClientIdentity;
    /** SEP-2243: the POST's headers must agree with the request and its `_meta` (-32020). */
    checkHeaders(request: JsonRpcRequest, envelope: Envelope, tools: ToolCatalog): void;
}

/**
 * The dispatch of one POSTed message (HTTP). A 2025-11-25 one goes to the POST's session; a
 * 2026-07-28 request (SEP-2575) is answered like a session's (answerRequest), on its own POST's
 * stream, as its credential, with its headers checked against its `_meta`.
 */
export function dispatchPost(services: McpServices, message: JsonRpcMessage, post: HttpPost): void {
    if (revisionFor(message, post) === '2025-11-25') {
        post.toSession(message);
        return;
    }
    if (!('method' in message) || !('id' in message)) {
        // No client notification is defined over HTTP in this revision (cancelling = closing the
        // stream), so one is accepted and dropped; but a version this server does not speak is
        // refused on every POST, a notification's too (400 and -32022, as the spec says).
        const requested = 'method' in message ? requestedVersion(message.method, message.params, post.headerVersion) : undefined;
        if (requested !== undefined && requested !== PROTOCOL_2026) {
            post.end(400, errorResponse(null, unsupportedVersion(requested).toJSON()));
        } else {
            post.end(202);
        }
        return;
    }
    const { reply, abort } = post.answerOn(message.id);
    const identity = post.identity();
    void answerRequest(
        message,
        reply,
        abort,
        (request, reply, abort) => serve2026(services, identity, request, reply, abort, envelope => post.checkHeaders(request, envelope, services.tools)),
        services.log,
        'http',
    );
}
