// Every error a person reads goes through here: the peer's own words, never a JSON-RPC code or
// method name. No vscode import (the task model uses it too); the notifications live in errorNotice.ts.
import { RpcError, RpcErrorCodes } from './client/rpcError';

/** "MCP error -32603: …" (RpcError and the MCP SDK's McpError), and the server's "… (code -32603)". */
const CODE_PREFIX = /^(?:MCP error -?\d+:\s*)+/;
const CODE_SUFFIX = /\s*\(code -?\d+\)\s*$/;
/** The server's wrapper around a client's error answer: names a protocol method. */
const CLIENT_ANSWERED = /^The client answered [\w/]+ with an error:\s*/;

/** A message as a person should read it: the words, without codes or protocol method names. */
export function plainText(message: string): string {
    let text = message.trim();
    for (;;) {
        const next = text.replace(CLIENT_ANSWERED, '').replace(CODE_PREFIX, '').replace(CODE_SUFFIX, '');
        if (next === text) {
            return text;
        }
        text = next;
    }
}

/** What went wrong, in words, for any thrown value. */
export function errorText(err: unknown): string {
    if (err instanceof RpcError) {
        return plainText(err.reason);
    }
    return plainText(err instanceof Error ? err.message : String(err));
}

/** A cancel that lost the race to the task's own end: the server says it is "already <status>". */
export function alreadyFinished(err: unknown): boolean {
    return err instanceof RpcError && err.code === RpcErrorCodes.InvalidParams && /\bis already (completed|failed|cancelled)\b/.test(err.reason);
}

/** The reason sampling failed because VS Code offers no language model (sampling.ts throws it). */
export const NO_LANGUAGE_MODEL = 'No language model is available in VS Code for sampling';

