// Plain CommonJS so the self-test needs no build step. VS Code infers the
// onCommand activation event from contributes.commands.
const vscode = require('vscode');

function activate(context) {
    context.subscriptions.push(vscode.commands.registerCommand('vscodeHostSelftest.ping', () => 'pong'));
}

function deactivate() {}

module.exports = { activate, deactivate };
