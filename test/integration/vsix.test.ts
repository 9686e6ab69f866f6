import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { activateExtension, askUi, EXTENSION_ID, invoke, processAlive, startInVsCode, toolNamed, unresolvedManifestStrings, waitFor } from './util';
import { everything } from './wrapped';

/** Runs against the packaged .vsix, installed with `code-server --install-extension` as a user would. */
describe('the installed .vsix', () => {
    it('is installed from the extensions folder, not a development path', () => {
        const ext = vscode.extensions.getExtension(EXTENSION_ID);
        assert.ok(ext, 'installed');
        assert.match(ext.extensionPath, /extensions[/\\]mcp-tasks\.mcp-tasks-/);
        assert.equal(ext.packageJSON.displayName, 'MCP Tasks');
        // package.nls.json ships in the .vsix: VS Code found the English text of every %key%.
        assert.deepEqual(unresolvedManifestStrings(), []);
        assert.equal(ext.packageJSON.contributes.commands.find((c: { command: string }) => c.command === 'mcpTasks.cancelTask')?.title, 'Cancel Task');
    });

    it('activates and starts its server', async () => {
        const api = await activateExtension();
        const { pid } = await api.ensureServer();
        assert.ok(pid && processAlive(pid));
    });

    it('serves its tools to VS Code’s MCP client', async () => {
        const tools = await startInVsCode();
        assert.equal(await invoke(tools.get('greet')!, { name: 'vsix' }), 'Hello, vsix!');
        await assert.rejects(invoke(tools.get('failing_job')!, {}), /Job failed/);
    });

    it("wraps an MCP server with the gateway's SDK client it ships (dist/gateway-client.js: nothing installed at run time)", async function () {
        this.timeout(300_000);
        const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
        assert.ok(existsSync(join(ext.extensionPath, 'dist', 'gateway-client.js')), 'dist/gateway-client.js is in the .vsix');
        // An installed extension gives no test hooks: VS Code's own tool list is the observable.
        const api = await activateExtension();
        const settings = vscode.workspace.getConfiguration('mcpTasks');
        try {
            await settings.update('wrap', { everything: everything(['get-sum']) }, vscode.ConfigurationTarget.Global);
            const sum = await waitFor(
                'the wrapped get-sum in vscode.lm.tools',
                async () => {
                    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true, autoTrustChanges: true });
                    return toolNamed('get-sum');
                },
                120_000,
                1000,
            );
            assert.match(await invoke(sum, { a: 2, b: 3 }), /5/);
        } finally {
            await settings.update('wrap', undefined, vscode.ConfigurationTarget.Global);
            await startInVsCode(120_000, api);
        }
    });

    it('ships the sidebar view and its commands', async () => {
        const commands = await vscode.commands.getCommands(true);
        for (const id of ['mcpTasks.runTool', 'mcpTasks.cancelTask', 'mcpTasks.showResult', 'mcpTasks.clearFinished', 'mcpTasks.refresh', 'mcpTasks.copyTaskId', 'mcpTasks.showLog', 'mcpTasks.restartServer']) {
            assert.ok(commands.includes(id), `${id} is registered`);
        }
        await vscode.commands.executeCommand('mcpTasks.tasks.focus');
        await waitFor('no error focusing the view', () => true);
    });

    it("draws its README's images on the extension's details page (needs the Playwright UI driver)", async () => {
        // extension.open asks the (unreachable) gallery first: list it in the Extensions view, and the driver clicks it.
        await vscode.commands.executeCommand('workbench.extensions.search', '@installed MCP Tasks');
        const images = await askUi<{ alt: string; scheme: string; drawn: boolean }[]>('ui-readme-images vsix', 'readme-images-vsix.json');
        assert.ok(images.length >= 2, `the README's images: ${JSON.stringify(images)}`);
        assert.deepEqual(images.filter(image => !image.drawn), [], 'every image draws (not its alt text)');
        // The page keeps only https: sources (a relative or data: one loses its src): the repository's URL.
        assert.deepEqual(images.map(image => image.scheme), images.map(() => 'https'));
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    });
});
