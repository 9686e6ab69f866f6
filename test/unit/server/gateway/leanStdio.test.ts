import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LeanStdioTransport } from '../../../../server/src/gateway/leanStdio.js';

// The gateway's stdio transport to a wrapped server, against a real child process: the messages
// of one turn reach it in one write once it has work enough (a request goes at once while it holds
// few), and its lines are read whole, however the pipe splits them, with a line that is not
// JSON-RPC reported and skipped, as the SDK's reader does.

/** A child that reports how many lines each read of its stdin held, then writes awkward frames. */
const CHILD = `
process.stdin.on('data', chunk => {
    const lines = chunk.toString().split('\\n').filter(Boolean).length;
    const say = text => process.stdout.write(text);
    say(JSON.stringify({ jsonrpc: '2.0', method: 'read', params: { lines } }).slice(0, 20));
    setTimeout(() => {
        say(JSON.stringify({ jsonrpc: '2.0', method: 'read', params: { lines } }).slice(20) + '\\n');
        say('{"jsonrpc":"2.0","method":"crlf"}\\r\\n\\nnot json\\n{"no":"version"}\\n{"jsonrpc":"2.0","method":"last"}\\n');
    }, 20);
});
`;

describe('LeanStdioTransport', () => {
    it('writes the messages of one turn together and reads split, CRLF and bad lines as the SDK would', { timeout: 20_000 }, async () => {
        const transport = new LeanStdioTransport({ command: process.execPath, args: ['-e', CHILD] });
        const messages: JSONRPCMessage[] = [];
        const errors: string[] = [];
        let last!: () => void;
        const done = new Promise<void>(resolve => (last = resolve));
        transport.onmessage = message => {
            messages.push(message);
            if ('method' in message && message.method === 'last') {
                last();
            }
        };
        transport.onerror = err => errors.push(err.message);
        await transport.start();
        // The writes to the child's stdin (the SDK keeps the process as _process).
        const stdin = (transport as unknown as { _process: { stdin: { write(text: string): boolean } } })._process.stdin;
        const writes: string[] = [];
        const write = stdin.write.bind(stdin);
        stdin.write = (text: string) => (writes.push(text), write(text));
        await Promise.all([1, 2, 3, 4, 5].map(n => transport.send({ jsonrpc: '2.0', method: 'note', params: { n } })));
        assert.equal(writes.length, 1);
        assert.equal(writes[0]!.split('\n').filter(Boolean).length, 5);
        await done;
        await transport.close();
        assert.deepEqual(messages, [
            { jsonrpc: '2.0', method: 'read', params: { lines: 5 } },
            { jsonrpc: '2.0', method: 'crlf' },
            { jsonrpc: '2.0', method: 'last' },
        ]);
        assert.equal(errors.length, 2, errors.join('\n'));
        assert.match(errors[1]!, /Not a JSON-RPC 2.0 message: \{"no":"version"\}/);
    });

    it('writes requests at once while the downstream holds few unanswered, and batches the rest of the turn', { timeout: 20_000 }, async () => {
        // Answers every request line at once. Each step below sends within one turn of our event
        // loop (the sends' promises settle on process.nextTick), and no answer is read before the
        // turn ends, so what is unanswered is decided by the steps, not by the child's speed.
        const child = `
let buffered = '';
process.stdin.on('data', chunk => {
    buffered += chunk;
    const lines = buffered.split('\\n');
    buffered = lines.pop();
    for (const line of lines.filter(Boolean)) {
        const { id } = JSON.parse(line);
        if (id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result: {} }) + '\\n');
    }
});
`;
        const transport = new LeanStdioTransport({ command: process.execPath, args: ['-e', child] });
        const answered = new Set<unknown>();
        let onAnswer = () => undefined as void;
        transport.onmessage = message => {
            if ('id' in message) {
                answered.add(message.id);
                onAnswer();
            }
        };
        await transport.start();
        const stdin = (transport as unknown as { _process: { stdin: { write(text: string): boolean } } })._process.stdin;
        const writes: number[] = [];
        const write = stdin.write.bind(stdin);
        stdin.write = (text: string) => (writes.push(text.split('\n').filter(Boolean).length), write(text));
        const allAnswered = (count: number) => new Promise<void>(resolve => (onAnswer = () => void (answered.size === count && resolve())));

        // Twelve requests in one turn: the first eight one write each, the last four in one.
        let waiting = allAnswered(12);
        await Promise.all(Array.from({ length: 12 }, (_, i) => transport.send({ jsonrpc: '2.0', id: i + 1, method: 'ping' })));
        assert.deepEqual(writes, [1, 1, 1, 1, 1, 1, 1, 1, 4]);
        await waiting;

        // All answered: the downstream holds none, so the next ones go at once again.
        writes.length = 0;
        waiting = allAnswered(15);
        await Promise.all([13, 14, 15].map(id => transport.send({ jsonrpc: '2.0', id, method: 'ping' })));
        assert.deepEqual(writes, [1, 1, 1]);
        await waiting;

        // A cancelled request is no longer counted as its work: eight unanswered, one cancelled
        // (its notification batched with nothing else that turn), so of the next turn's three the
        // first goes at once and the other two together.
        writes.length = 0;
        await Promise.all(Array.from({ length: 8 }, (_, i) => transport.send({ jsonrpc: '2.0', id: 16 + i, method: 'ping' })));
        await transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 16 } });
        await Promise.all([24, 25, 26].map(id => transport.send({ jsonrpc: '2.0', id, method: 'ping' })));
        assert.deepEqual(writes, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2]);
        await transport.close();
    });

    it('refuses to send once the process is gone, as the SDK transport does', { timeout: 20_000 }, async () => {
        const transport = new LeanStdioTransport({ command: process.execPath, args: ['-e', ''] });
        await transport.start();
        await transport.close();
        await assert.rejects(transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' }), /Not connected/);
    });
});
