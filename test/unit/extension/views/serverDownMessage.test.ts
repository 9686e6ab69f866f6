// The Tasks view's line about a server that is down (issue 46 item 9): said above old rows, never over the welcome.
import '../../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serverDownMessage } from '../../../../extension/views/serverDownMessage.js';

describe("the view's line about a server that is down", () => {
    it('says nothing while the server runs', () => {
        assert.equal(serverDownMessage(undefined, 3), undefined);
    });

    it('says nothing over an empty view: its welcome says it, with buttons', () => {
        assert.equal(serverDownMessage('MCP Tasks server could not start: port taken', 0), undefined);
    });

    it('with rows listed, says why the server is down, that the rows are not updated, and where Restart Server is', () => {
        const message = serverDownMessage('MCP Tasks server stopped unexpectedly (signal SIGKILL); restarting', 2);
        assert.match(message!, /^MCP Tasks server stopped unexpectedly \(signal SIGKILL\); restarting\. These rows are not updated while the server is down: Restart Server/);
        assert.equal(serverDownMessage('MCP Tasks server could not start: bad.', 1)!.split('bad.').length, 2, 'no doubled full stop');
    });
});
