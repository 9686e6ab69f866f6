// The same suite on a desktop VS Code through @vscode/test-electron, where one is available:
// VSCODE_EXECUTABLE names an installed VS Code; without it test-electron downloads one (needs internet).
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { runTests } from '@vscode/test-electron';

const root = resolve(import.meta.dirname, '../..');
const fixtures = mkdtempSync(resolve(tmpdir(), 'mcp-tasks-fixtures-'));
cpSync(resolve(root, 'test/integration/fixtures/fake-model'), resolve(fixtures, 'fake-model'), { recursive: true });
try {
    await runTests({
        vscodeExecutablePath: process.env.VSCODE_EXECUTABLE || undefined,
        extensionDevelopmentPath: [root, resolve(fixtures, 'fake-model')],
        extensionTestsPath: resolve(root, 'out/test/integration/index.js'),
        // input and ui need the Playwright driver of the code-server host, so they are not in this list.
        extensionTestsEnv: { MCP_TASKS_SUITE: process.env.MCP_TASKS_SUITE ?? 'copilotPath,lifecycle,sidebar,subtasks,zz_deactivate' },
        launchArgs: [resolve(root, 'test/integration/fixtures/workspace'), '--disable-workspace-trust'],
    });
} catch (err) {
    console.error(`[electron] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
}
