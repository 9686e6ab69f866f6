// A transport MCP Tasks does not know is said in words, with what is used instead (issue 46 item 9).
import '../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OWN_CLIENT_NAME } from '../../../extension/owner/ownerConnection.js';
import { transportProblem } from '../../../extension/settingProblems.js';
import { protocolTerms } from '../../support/userText.js';

describe('the transport setting', () => {
    it('says nothing for http, stdio or no value', () => {
        for (const value of ['http', 'stdio', undefined]) {
            assert.equal(transportProblem(value), undefined, String(value));
        }
    });

    it('names a value it does not know, the setting, the values it knows and what it uses instead', () => {
        const text = transportProblem('bogus')!;
        assert.equal(text, 'MCP Tasks does not know the transport "bogus" in the setting mcpTasks.transport: it can be "http" or "stdio". It uses "http" until the setting is fixed.');
        assert.deepEqual(protocolTerms(text, OWN_CLIENT_NAME), []);
        assert.match(transportProblem(3)!, /the transport 3 in the setting/);
    });
});
