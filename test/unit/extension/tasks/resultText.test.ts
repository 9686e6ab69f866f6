import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { endedInWords, formatResult } from '../../../../extension/tasks/resultText';

describe('Show Result: output reads like output', () => {
    it('keeps the lines of a text result in a preformatted block', () => {
        const haiku = 'an old silent pond\na frog jumps into the pond\nsplash! silence again';
        const md = formatResult('haiku', 't1', 'completed', { content: [{ type: 'text', text: haiku }] });
        assert.match(md, /```text\nan old silent pond\na frog jumps into the pond\nsplash! silence again\n```/);
    });

    it('fences text that holds backticks with a longer fence', () => {
        const md = formatResult('run', 't1', 'completed', { content: [{ type: 'text', text: 'a\n```\nb' }] });
        assert.match(md, /````text\na\n```\nb\n````/);
    });

    it('points a "Full log" line to the Show Output button of its tab', () => {
        const text = 'Exit 1 after 2 s\nLast lines:\n  1 boom\nFull log (1 line, 1 KB): /tmp/x.log.';
        const md = formatResult('build', 't1', 'failed', { content: [{ type: 'text', text }], isError: true }, { outputButton: true });
        assert.match(md, /^_The full log opens with Show Output in this tab’s title bar\._$/m);
        assert.match(md, /— ⚠ the tool reported an error/);
    });

    it('shows a command\'s digest once, with its lines, not again as an escaped summary string', () => {
        const summary = 'Exit 0 after 1 s\nLast lines:\n  1 ok\nFull log (1 line, 1 KB): /tmp/x.log.';
        const md = formatResult('build', 't1', 'completed', { content: [{ type: 'text', text: summary }], structuredContent: { status: 'exited', exitCode: 0, summary } });
        assert.ok(md.includes('```text\nExit 0 after 1 s\nLast lines:\n'), md);
        assert.doesNotMatch(md, /"summary"/);
        assert.match(md, /"exitCode": 0/);
    });

    it('no log, no pointer to it', () => {
        const md = formatResult('haiku', 't1', 'completed', { content: [{ type: 'text', text: 'x' }] }, { outputButton: true });
        assert.doesNotMatch(md, /full log/i);
    });

    it('a cancelled result says how it ended, not "the tool reported an error"', () => {
        const md = formatResult('build', 't1', 'cancelled', { content: [{ type: 'text', text: 'Task cancelled: Cancelled by the client' }], isError: true }, { ended: 'Cancelled by you' });
        assert.match(md, /— Cancelled by you/);
        assert.doesNotMatch(md, /Cancelled by the client|reported an error|isError/);
    });
});

describe('endedInWords', () => {
    const base = { status: 'cancelled', clientKind: 'copilot' as const, cancelledHere: false };
    it('the user\'s own Cancel', () => {
        assert.equal(endedInWords({ ...base, statusMessage: 'Cancelled by the client', cancelledHere: true }), 'Cancelled by you');
        assert.equal(endedInWords({ ...base, statusMessage: 'Cancelled from the MCP Tasks sidebar' }), 'Cancelled by you');
        assert.equal(endedInWords({ ...base, clientKind: 'editor', statusMessage: 'Cancelled by the client' }), 'Cancelled by you');
    });
    it('Copilot cancelled or stopped waiting', () => {
        assert.equal(endedInWords({ ...base, statusMessage: 'Cancelled by the client' }), 'Cancelled by Copilot');
        assert.equal(endedInWords({ ...base, statusMessage: 'Cancelled: Copilot stopped waiting for it (no check for 30 s)' }), 'Copilot stopped waiting');
    });
    it('the server shut down', () => {
        assert.equal(endedInWords({ ...base, statusMessage: 'Server shutting down' }), 'Stopped: the server shut down');
    });
    it('says nothing for a task that was not cancelled', () => {
        assert.equal(endedInWords({ ...base, status: 'failed', statusMessage: 'Exit 1' }), undefined);
    });
});
