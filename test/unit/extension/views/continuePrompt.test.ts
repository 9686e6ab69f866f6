import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { continueInChatPrompt } from '../../../../extension/views/continuePrompt';

describe('continue-in-chat prompt', () => {
    it('names the task, its tool and key argument, and its outcome, and says how to read the result', () => {
        const prompt = continueInChatPrompt({ taskId: 't1', toolName: 'deploy', keyArgument: 'web', status: 'failed', statusMessage: 'Sub-task deploy_step t2 failed:\n  test broke' });
        assert.equal(prompt, 'The background task t1 (deploy: web) failed (Sub-task deploy_step t2 failed: test broke). Get its result with get_task and continue from there.');
    });

    it('clips a long status message to one short line', () => {
        const prompt = continueInChatPrompt({ taskId: 't1', toolName: 'slow_compute', status: 'completed', statusMessage: 'x'.repeat(1000) });
        assert.ok(prompt.length < 450, `${prompt.length} characters`);
        assert.match(prompt, /x…\)\./);
    });
});
