import { ErrorCodes, invalidParams, RpcError } from '../../rpc/errors.js';
import { ADVERTISED_VERSIONS, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION, PROTOCOL_2026 } from '../../contract.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** What a stateless request says about its client, read from its `_meta` (SEP-2575). */
export interface Envelope {
    version: string;
    capabilities: Record<string, unknown>;
    clientName?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads and checks a stateless request's `_meta`: a -32602 when a required field is missing or
 * malformed (clientInfo is optional). checkVersion comes next (-32022); HTTP checks its headers
 * against it in between (transports/mcpHeaders.ts). A stdio pipe remembers the outcome for its
 * client's repeated `_meta` (Pipe2026, pipe.ts).
 */
export function readEnvelope(params: Record<string, unknown> | undefined): Envelope {
    const meta = params?._meta;
    if (!isObject(meta)) {
        throw invalidParams('A 2026-07-28 request needs _meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities');
    }
    const version = meta[META_PROTOCOL_VERSION];
    if (typeof version !== 'string' || version === '') {
        throw invalidParams(`_meta["${META_PROTOCOL_VERSION}"] must be a protocol version string`);
    }
    const capabilities = meta[META_CLIENT_CAPABILITIES];
    if (!isObject(capabilities)) {
        throw invalidParams(`_meta["${META_CLIENT_CAPABILITIES}"] must be an object (empty when the client declares none)`);
    }
    const info = meta[META_CLIENT_INFO];
    const clientName = isObject(info) && typeof info.name === 'string' ? info.name.slice(0, 200) : undefined;
    return { version, capabilities, clientName };
}

export function checkVersion(envelope: Envelope): void {
    if (envelope.version !== PROTOCOL_2026) {
        throw unsupportedVersion(envelope.version);
    }
}

/** The versions a server lists: 2026-07-28 alone when it refuses 2025-11-25 (`--no-session-protocol`). */
export function advertisedVersions(only2026: boolean | undefined): readonly string[] {
    return only2026 ? STATELESS_ONLY : ADVERTISED_VERSIONS;
}
const STATELESS_ONLY: readonly string[] = [PROTOCOL_2026];

/** UnsupportedProtocolVersionError (-32022), listing the versions this server speaks. */
export function unsupportedVersion(requested: unknown, supported: readonly string[] = ADVERTISED_VERSIONS): RpcError {
    return new RpcError(ErrorCodes.UnsupportedProtocolVersion, `Unsupported protocol version: ${String(requested)}`, { supported, requested });
}

export function hasTasksExtension(envelope: Envelope): boolean {
    const extensions = envelope.capabilities.extensions;
    return isObject(extensions) && extensions[TASKS_EXTENSION] !== undefined;
}

/** -32021, naming what is missing as a ClientCapabilities object. */
export function missingCapability(message: string, required: Record<string, unknown>): RpcError {
    return new RpcError(ErrorCodes.MissingRequiredClientCapability, message, { requiredCapabilities: required });
}

export function requireTasksExtension(envelope: Envelope, what: string): void {
    if (!hasTasksExtension(envelope)) {
        throw missingCapability(`${what} needs the ${TASKS_EXTENSION} extension: declare it in _meta["${META_CLIENT_CAPABILITIES}"].extensions`, { extensions: { [TASKS_EXTENSION]: {} } });
    }
}
