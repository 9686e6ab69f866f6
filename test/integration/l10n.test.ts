import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { EXTENSION_ID, unresolvedManifestStrings } from './util';

/** The English strings reach the workbench: the manifest's %key%s and the code's vscode.l10n.t calls. */
describe('localizable strings in English', () => {
    it('every %key% of package.json resolves from package.nls.json, and vscode.l10n.t fills placeholders', () => {
        assert.deepEqual(unresolvedManifestStrings(), []);
        const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { displayName: string; contributes: { commands: { command: string; title: string }[] } };
        assert.equal(manifest.displayName, 'MCP Tasks');
        assert.equal(manifest.contributes.commands.find(c => c.command === 'mcpTasks.runTool')?.title, 'Run Tool…');
        // In English VS Code returns the source text, placeholders filled and comments dropped.
        assert.equal(vscode.l10n.t('Copied task id {0}', 'abc'), 'Copied task id abc');
        assert.equal(vscode.l10n.t({ message: 'Run {0}', args: ['Slow compute'], comment: ['{0} is the title of a tool'] }), 'Run Slow compute');
    });
});
