// Messages the extension builds at run time from the server's own texts (a task's status message, shown in
// its row, tooltip and notifications): whatever the server wrote for a model, a person reads no protocol term.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { statusDigest } from '../../../../server/src/commands/status';
import { statusInWords } from '../../../../extension/tasks/taskView';
import { protocolTerms } from '../../../support/userText';

const root = resolve(__dirname, '../../../..');
const OWN_CLIENT_NAME = /export const OWN_CLIENT_NAME = '([^']+)'/.exec(readFileSync(join(root, 'extension/owner/ownerConnection.ts'), 'utf8'))![1]!;

/** Status messages the server writes (its own texts, the SDK's wrappers around a client's error answer). */
const SERVER_MESSAGES = [
    'MCP error -32603: The language model is not available',
    'The client answered sampling/createMessage with an error: MCP error -1: The user denied the request (code -1)',
    'The client answered elicitation/create with an error: Request timed out (code -32001)',
    statusDigest({
        headline: 'exit 1: npm test',
        scan: { head: [{ n: 1, text: 'not ok 1 - parses dates' }], tail: [], lines: 1, bytes: 24, skippedBytes: 0, matches: 1, groups: [[{ n: 1, text: 'not ok 1 - parses dates' }]] },
        logPath: '/tmp/logs/run_tests.log',
        taskId: 'b7c1f0a2-1111-4a4a-9d9d-0123456789ab',
        readOutput: true,
    }),
];

describe('status messages built from the server\'s texts', () => {
    for (const message of SERVER_MESSAGES) {
        it(`names no protocol term: ${JSON.stringify(message.slice(0, 60))}…`, () => {
            const shown = statusInWords(message, 'Visual Studio Code');
            assert.deepEqual(protocolTerms(shown, OWN_CLIENT_NAME), [], shown);
        });
    }
});
