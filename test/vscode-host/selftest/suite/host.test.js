// Proves the host is the VS Code we expect and that our extension loaded in it.
const assert = require('node:assert/strict');
const vscode = require('vscode');

const EXTENSION_ID = 'mcp-tasks.vscode-host-selftest';

describe('code-server test host', () => {
    it('runs VS Code 1.139', () => {
        assert.ok(vscode.version.startsWith('1.139'), `got VS Code ${vscode.version}`);
    });

    it('loads the extension under development and its command', async () => {
        assert.ok(vscode.extensions.getExtension(EXTENSION_ID), `${EXTENSION_ID} is not installed`);
        // Commands are registered on activation, which running the command triggers.
        assert.equal(await vscode.commands.executeCommand('vscodeHostSelftest.ping'), 'pong');
        const commands = await vscode.commands.getCommands(true);
        assert.ok(commands.includes('vscodeHostSelftest.ping'));
    });

    it('exposes the stable MCP server definition provider API', () => {
        assert.equal(typeof vscode.lm.registerMcpServerDefinitionProvider, 'function');
    });

    it('passes extensionEnvironment to the extension host', () => {
        assert.equal(process.env.VSCODE_HOST_SELFTEST, 'yes');
    });
});
