// What the Tasks view says above its rows or in their place: a server that is down (issue 46 item 9),
// and an emptied view (issue 49 item 3: a message, not the welcome whose buttons lose the keyboard).
import '../../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { viewMessage } from '../../../../extension/views/viewMessage.js';

describe("the Tasks view's message", () => {
    it('says nothing while the server runs and rows are listed', () => {
        assert.equal(viewMessage(undefined, 3, true), undefined);
    });

    it('says nothing over a view that has never listed a task: its welcome says it, with buttons', () => {
        assert.equal(viewMessage(undefined, 0, false), undefined);
        assert.equal(viewMessage('MCP Tasks server could not start: port taken', 0, false), undefined);
    });

    it('with rows listed, says why the server is down, that the rows are not updated, and where Restart Server is', () => {
        const message = viewMessage('MCP Tasks server stopped unexpectedly (signal SIGKILL); restarting', 2, true);
        assert.match(message!, /^MCP Tasks server stopped unexpectedly \(signal SIGKILL\); restarting\. These rows are not updated while the server is down: Restart Server/);
        assert.equal(viewMessage('MCP Tasks server could not start: bad.', 1, true)!.split('bad.').length, 2, 'no doubled full stop');
    });

    it('once emptied, says in words what the welcome said and where its buttons are', () => {
        const empty = viewMessage(undefined, 0, true)!;
        assert.match(empty, /^No tasks now\./);
        assert.match(empty, /Run Tool… \(the ▷ button in this view's title bar\) starts one/);
        const down = viewMessage('MCP Tasks server could not start: port taken.', 0, true)!;
        assert.match(down, /^MCP Tasks server could not start: port taken\. Copilot cannot use its tools until it runs again: Restart Server \(the ↻ button/);
    });
});
