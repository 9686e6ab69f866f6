import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { activateExtension, EXTENSION_ID, processAlive, useTransport } from './util';

/** Runs last (files load in name order): after it the extension has no server. */
describe('deactivation', () => {
    it('deactivate() stops the server process: no orphan remains', async () => {
        const api = await activateExtension();
        await useTransport(api, 'http');
        const { pid } = await api.ensureServer();
        assert.ok(pid && processAlive(pid));
        // The same module instance VS Code loaded: call the deactivate VS Code would call.
        const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const main = require(join(ext.extensionPath, 'dist', 'extension.js')) as { deactivate(): Promise<void> };
        await main.deactivate();
        assert.ok(!processAlive(pid), `server ${pid} is gone once deactivate() resolves`);
    });
});
