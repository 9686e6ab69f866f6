import { PROTOCOL_VERSION } from '../contract.js';

/**
 * The protocol revisions this server speaks, newest first: the list of SDK 1.32.2's
 * SUPPORTED_PROTOCOL_VERSIONS, kept here so that the SDK's schema module (some 30 ms of start-up)
 * loads only when a schema is first needed.
 */
export const LATEST_PROTOCOL_VERSION = PROTOCOL_VERSION;
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION, '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
