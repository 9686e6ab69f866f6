/**
 * The words a person should never read in the editor: result fields, method names, JSON-RPC codes
 * and terms, internal client names, and placeholders left unfilled. Used by the static scan of the
 * bundle and the manifest (test/unit/extension/userText.test.ts) and by the walk of the README's
 * journeys in a real VS Code (test/integration/readmeWalk.test.ts).
 */

/** `ownClientName`: the name our own connection gives in initialize (extension/owner/ownerConnection.ts). */
export function protocolTermPatterns(ownClientName: string): [RegExp, string][] {
    return [
        [/\bisError\b/, 'the isError field'],
        [/\bstructuredContent\b/, 'the structuredContent field'],
        [/\btasks\/(get|result|list|cancel)\b/, 'a tasks method name'],
        [/\b(elicitation|sampling)\/(create)?|\bcreateMessage\b|\btools\/call\b/, 'a method name'],
        [/(^|[^\w-])-32\d{3}\b/, 'a JSON-RPC error code'],
        [/JSON-?RPC|jsonrpc/i, 'JSON-RPC'],
        [/\binput_required\b|\bpollInterval\b|\bprogressToken\b|\btask_id\b/, 'a wire field or status'],
        [/\bMCP error\b/, 'an MCP SDK error prefix'],
        // The server's words for a cancel that came from the caller; the extension says who ("Cancelled by you", "by Copilot").
        [/\bCancelled by the client\b/, 'the server\'s "Cancelled by the client"'],
        // The tooltip's retention row said "TTL"; a person reads "kept for".
        [/\bTTL\b/, 'the term TTL'],
        // VS Code showed this name in its language model consent question ("Allow MCP Tasks for VS Code to use …").
        // Users know the extension as "MCP Tasks".
        [new RegExp(ownClientName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'the internal name of our own MCP client'],
        [/\b(raw-cli|mcp-tasks-owner|mcp-tasks-gateway)\b/, 'an internal client name'],
    ];
}

/**
 * Words of the protocol that read as jargon in the extension's own texts (its l10n bundle and manifest):
 * "sampling" is a language model request; a bare "client" is the editor, Copilot, or the app that
 * started a task ("MCP client" stays: it names a kind of app the user installs).
 */
export const JARGON_PATTERNS: [RegExp, string][] = [
    [/\bsampling\b/i, 'the term "sampling" (say "language model request")'],
    [/(?<!MCP )\bclients?\b/i, 'a bare "client" (say "the editor", "Copilot", "the app that started it" or "MCP client")'],
];

/** What `text` names that a person should not read (empty when nothing). */
export function protocolTerms(text: string, ownClientName: string): string[] {
    return protocolTermPatterns(ownClientName)
        .filter(([pattern]) => pattern.test(text))
        .map(([, what]) => what);
}

/** A `{0}`, `{1}`… an l10n message shows as is when its argument was not passed. */
export const RAW_PLACEHOLDER = /\{\d+\}/;
