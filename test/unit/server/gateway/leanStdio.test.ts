import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LeanStdioTransport } from '../../../../server/src/gateway/leanStdio.js';

// The gateway's stdio transport to a wrapped server, against a real child process: the requests
// of one turn reach it in one write, and its lines are read whole, however the pipe splits them,
// with a line that is not JSON-RPC reported and skipped, as the SDK's reader does.

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
        await Promise.all([1, 2, 3, 4, 5].map(id => transport.send({ jsonrpc: '2.0', id, method: 'ping' })));
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

    it('refuses to send once the process is gone, as the SDK transport does', { timeout: 20_000 }, async () => {
        const transport = new LeanStdioTransport({ command: process.execPath, args: ['-e', ''] });
        await transport.start();
        await transport.close();
        await assert.rejects(transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' }), /Not connected/);
    });
});
