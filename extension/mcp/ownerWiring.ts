import * as vscode from 'vscode';
import type { ExtensionConfig } from '../config';
import { SERVER_ID } from '../constants';
import type { OwnerConnection } from './ownerConnection';
import type { ServerHost } from './serverHost';
import type { StdioOwnerChannel } from './stdioOwner';

/** Keeps the owner connection pointed at whichever server currently runs, in either mode; call the result after a transport switch. */
export function wireOwnerEndpoint(owner: OwnerConnection, host: ServerHost, stdioOwner: StdioOwnerChannel, config: () => ExtensionConfig): vscode.Disposable & { update(): void } {
    const update = () => {
        if (config().transport === 'http') {
            owner.setEndpoint(host.url ? { url: host.url, token: host.ownerToken, pid: host.pid } : undefined);
        } else {
            const announced = stdioOwner.endpoint;
            owner.setEndpoint(announced ? { url: announced.url, token: host.ownerToken, pid: announced.pid } : undefined);
        }
    };
    const subscriptions = [host.onDidChange(update), host.onDidLaunch(update), stdioOwner.onDidChange(update)];
    update();
    const disposable = vscode.Disposable.from(...subscriptions, { dispose: () => owner.setEndpoint(undefined) });
    return { dispose: () => disposable.dispose(), update };
}

/** Makes sure a server runs and our owner connection is up (for Run Tool and friends). */
export async function ensureOwnerReady(owner: OwnerConnection, host: ServerHost, stdioOwner: StdioOwnerChannel, config: () => ExtensionConfig, timeoutMs = 20_000): Promise<void> {
    if (owner.connected) {
        return;
    }
    if (config().transport === 'http') {
        await host.ensureStarted();
    } else if (!stdioOwner.endpoint) {
        // VS Code owns the stdio process: ask it to start our server.
        await vscode.commands.executeCommand('workbench.mcp.startServer', SERVER_ID, { autoTrustChanges: true });
    }
    await new Promise<void>((resolve, reject) => {
        if (owner.connected) {
            resolve();
            return;
        }
        const timer = setTimeout(() => {
            subscription.dispose();
            reject(new Error('the MCP Tasks server did not come up in time (see MCP Tasks: Show Log)'));
        }, timeoutMs);
        const subscription = owner.onDidChangeState(up => {
            if (up) {
                clearTimeout(timer);
                subscription.dispose();
                resolve();
            }
        });
    });
}
