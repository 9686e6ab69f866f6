import type { Transport } from './config';

/** What `activate` returns: for tests and for other extensions that want to find the server. */
export interface McpTasksApi {
    readonly transport: Transport;
    /** The HTTP server this window launched (http mode), or the stdio server's owner endpoint. */
    serverState(): { transport: Transport; pid?: number; url?: string };
    /** Starts the HTTP server now, instead of waiting for VS Code to resolve the definition. */
    ensureServer(): Promise<{ pid?: number; url?: string }>;
    /** The owner endpoint and credential; only in ExtensionMode.Test (tests check the server side). */
    ownerEndpointForTests(): { url: string; token: string } | undefined;
}
