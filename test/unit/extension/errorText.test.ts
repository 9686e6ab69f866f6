// Errors read in words: no JSON-RPC codes or protocol method names, and a lost cancel race is no error.
import { fake } from '../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { showCancelOutcome, showCommandError } from '../../../extension/errorNotice.js';
import { alreadyFinished, errorText, NO_LANGUAGE_MODEL, plainText } from '../../../extension/errorText.js';
import { RpcError, RpcErrorCodes } from '../../../extension/client/rpcError.js';
import { formatResult } from '../../../extension/tasks/resultText.js';
import { fromWire } from '../../../extension/tasks/taskView.js';

describe('errorText', () => {
    beforeEach(() => fake.reset());

    it('gives an RpcError\'s words without its code', () => {
        const err = new RpcError(RpcErrorCodes.InternalError, 'No language model is available in VS Code for sampling');
        assert.equal(err.message, 'MCP error -32603: No language model is available in VS Code for sampling');
        assert.equal(errorText(err), 'No language model is available in VS Code for sampling');
    });

    it('strips codes and the protocol wrapper from texts that went through the server', () => {
        assert.equal(
            plainText('The client answered sampling/createMessage with an error: MCP error -32603: No language model is available in VS Code for sampling (code -32603)'),
            'No language model is available in VS Code for sampling',
        );
        assert.equal(errorText(new Error('MCP error -32001: Request timed out')), 'Request timed out');
        assert.equal(plainText('Deployed web in 3 steps'), 'Deployed web in 3 steps');
        assert.equal(errorText('plain'), 'plain');
    });

    it('recognises a cancel that lost the race to the task\'s end, and nothing else', () => {
        for (const status of ['completed', 'failed', 'cancelled']) {
            assert.ok(alreadyFinished(new RpcError(RpcErrorCodes.InvalidParams, `Task t1 is already ${status} and cannot be cancelled`)));
        }
        assert.ok(!alreadyFinished(new RpcError(RpcErrorCodes.InvalidParams, 'Task not found: t1')));
        assert.ok(!alreadyFinished(new RpcError(RpcErrorCodes.InternalError, 'Task t1 is already completed and cannot be cancelled')));
        assert.ok(!alreadyFinished(new Error('Task t1 is already completed and cannot be cancelled')));
    });

    it('shows a lost cancel race as information, and other errors in words', () => {
        assert.equal(showCancelOutcome('slow_compute: q1', new RpcError(RpcErrorCodes.InvalidParams, 'Task t1 is already completed and cannot be cancelled')), true);
        assert.equal(showCancelOutcome('slow_compute: q1', new RpcError(RpcErrorCodes.InvalidParams, 'Task not found: t1')), false);
        showCommandError('cannot show the result of slow_compute: q1', new RpcError(RpcErrorCodes.InvalidParams, 'Task not found: t1'));
        assert.deepEqual(
            fake.messages.map(m => [m.level, m.message]),
            [
                ['info', 'slow_compute: q1 had already finished.'],
                ['error', 'MCP Tasks: cannot show the result of slow_compute: q1: Task not found: t1'],
            ],
        );
    });

    it('keeps codes out of a failed task\'s message and result', () => {
        const failure = 'The client answered sampling/createMessage with an error: No language model is available in VS Code for sampling (code -32603)';
        const view = fromWire({ taskId: 't1', status: 'failed', statusMessage: failure });
        assert.equal(view?.statusMessage, NO_LANGUAGE_MODEL);
        const text = formatResult('write_haiku', 't1', 'failed', { isError: true, content: [{ type: 'text', text: failure }] });
        assert.doesNotMatch(text, /-32603|sampling\/createMessage/);
        assert.match(text, /No language model is available/);
    });
});
