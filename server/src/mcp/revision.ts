import { META_PROTOCOL_VERSION, PROTOCOL_2025_VERSIONS } from '../contract.js';

import type { RevisionName } from '../contract.js';

/**
 * The one rule that picks the protocol a message is served with (docs/PROTOCOL.md, "Which
 * revision answers"). A message that belongs to a session (an HTTP Mcp-Session-Id, or a stdio
 * pipe that has sent initialize) is 2025-11-25, whatever it carries. Otherwise a message that
 * names a protocol version outside PROTOCOL_2025_VERSIONS (in `_meta`, or else the
 * MCP-Protocol-Version header) is 2026-07-28's, and so is `server/discover`; everything else,
 * `initialize` first of all, is the 2025-11-25 handshake's. So a 2025-11-25 client sees exactly
 * today's server, and a sessionless request with an unknown version reaches the code that answers
 * it with UnsupportedProtocolVersionError.
 */
export function revisionOf(method: string, params: Record<string, unknown> | undefined, inSession: boolean, headerVersion?: string): RevisionName {
    if (inSession) {
        return '2025-11-25';
    }
    const version = requestedVersion(method, params, headerVersion);
    if (version !== undefined && !(typeof version === 'string' && PROTOCOL_2025_VERSIONS.includes(version))) {
        return '2026-07-28';
    }
    return method === 'server/discover' ? '2026-07-28' : '2025-11-25';
}

/** The protocol version a sessionless message asks for: its `_meta`'s, or else the MCP-Protocol-Version header's; undefined when it names none. */
export function requestedVersion(method: string, params: Record<string, unknown> | undefined, headerVersion?: string): unknown {
    const meta = params?._meta;
    const metaVersion = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)[META_PROTOCOL_VERSION] : undefined;
    // An initialize is the 2025-11-25 handshake whatever version header came with it (the fuzz found
    // an empty MCP-Protocol-Version turning one into a stateless request); only a 2026-07-28 _meta
    // makes it a stateless request, which is then told that initialize is gone.
    return metaVersion ?? (method === 'initialize' ? undefined : headerVersion);
}
