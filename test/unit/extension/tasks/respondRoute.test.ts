import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { respondRoute } from '../../../../extension/tasks/respondRoute.js';

const OWN = 'MCP Tasks for VS Code';

describe('where Respond takes the user', () => {
    it("to this extension's own prompt whenever one is open, whoever started the task", () => {
        for (const clientName of [OWN, 'Visual Studio Code', 'Claude Desktop', undefined]) {
            assert.equal(respondRoute({ clientName, chat: true }, true, OWN), 'prompt');
        }
    });

    it("to VS Code's Notifications Center for its MCP client's call outside a chat, to the chat for one from a chat", () => {
        for (const clientName of ['Visual Studio Code', 'code-server', 'GitHub Copilot']) {
            assert.equal(respondRoute({ clientName }, false, OWN), 'notifications', clientName);
            assert.equal(respondRoute({ clientName, chat: true }, false, OWN), 'chat', clientName);
        }
    });

    it('nowhere in this window for another client, or for a task of this editor whose prompt is not up', () => {
        assert.equal(respondRoute({ clientName: 'Claude Desktop', chat: true }, false, OWN), 'elsewhere');
        assert.equal(respondRoute({ clientName: undefined }, false, OWN), 'elsewhere');
        assert.equal(respondRoute({ clientName: OWN }, false, OWN), 'elsewhere');
    });
});
