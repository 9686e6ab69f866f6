import type * as vscode from 'vscode';
import type { Transport } from '../config';
import type { OwnerEndpoint } from '../owner/ownerConnection';

/** One server launch's credentials: made fresh for every process, so none outlives its server. */
export interface Secrets {
    /** Handed to VS Code's MCP client (Copilot): an ordinary, isolated client credential. */
    readonly clientToken: string;
    /** Only this extension's own client holds it: it sees every client's tasks. */
    readonly ownerToken: string;
}

/**
 * Everything that differs between the transports, behind one shape: how VS Code gets the server,
 * where our owner client reaches it, how it starts and restarts. One object per transport
 * (httpMode, stdioMode); nothing else asks which transport is in use.
 */
export interface ServerMode extends vscode.Disposable {
    readonly transport: Transport;
    /** The definition VS Code lists. Cheap: starts nothing. */
    provide(version: string): vscode.McpServerDefinition;
    /**
     * VS Code is about to start the server: fill in what it needs (HTTP starts our child here).
     * Undefined refuses a definition this mode did not make (a stale one from before a switch).
     */
    resolve(definition: vscode.McpServerDefinition): Promise<vscode.McpServerDefinition | undefined>;
    /** Where our owner client connects now; undefined while no server runs. */
    readonly ownerEndpoint: OwnerEndpoint | undefined;
    /** Where an ordinary MCP client reaches the server with the client token; undefined when only VS Code can (stdio). */
    readonly clientEndpoint: { url: string; token: string } | undefined;
    /** The running server, as far as this window knows it. */
    readonly state: { pid?: number; url?: string };
    /** Set while the server is down after a crash; cleared when it runs again. */
    readonly problem: string | undefined;
    /** The owner endpoint, the state or the problem changed. */
    readonly onDidChangeServer: vscode.Event<void>;
    /** VS Code must fetch the definition again and reconnect (the reason is logged). */
    readonly onDidChangeDefinition: vscode.Event<string>;
    /** Makes a server run, for our own use (Run Tool, the API). */
    start(): Promise<void>;
    /** Replaces a running server so current settings apply; starts nothing that was not running. */
    restart(): Promise<void>;
    /** Stops what this mode started; awaited on deactivate and on a transport switch. */
    stop(): Promise<void>;
}
