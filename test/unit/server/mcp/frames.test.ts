/**
 * The two shortcuts of the stdio frame path: a repeated 2026-07-28 `_meta` parsed once per
 * pipe (Pipe2026.decode), and a pre-serialised last member spliced into a response (encodeFrame).
 * Each must give exactly what plain JSON.parse / JSON.stringify give, whatever the line holds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { McpServices } from '../../../../server/src/mcp/context.js';
import { Pipe2026 } from '../../../../server/src/mcp/rev2026/pipe.js';
import { encodeFrame, JsonText, withJsonTail } from '../../../../server/src/rpc/jsonText.js';
import { decodeFrame, type Decoded, type JsonRpcMessage } from '../../../../server/src/rpc/messages.js';

const META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    'io.modelcontextprotocol/clientInfo': { name: 'frames-test', version: '1' },
};
const META_JSON = JSON.stringify(META);

function request(id: number, params: string): string {
    return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}`;
}

/** A pipe's 2026-07-28 side; decoding reads none of the services. */
function newPipe(): Pipe2026 {
    return new Pipe2026({} as McpServices, { clientKey: 'stdio:frames', isOwner: false });
}

/** Decodes the lines in order with one memo; each must equal a plain decode (key order aside). */
function decodeAll(lines: string[]): { memo: Pipe2026; decoded: Decoded[] } {
    const memo = newPipe();
    const decoded = lines.map(line => {
        const got = memo.decode(line);
        assert.deepEqual(got, decodeFrame(line), line);
        return got;
    });
    return { memo, decoded };
}

function metaOf(decoded: Decoded): unknown {
    assert.equal(decoded.kind, 'request');
    return (decoded as { message: JsonRpcMessage & { params: Record<string, unknown> } }).message.params._meta;
}

describe('Pipe2026.decode', () => {
    it('parses a repeated _meta once and hands later lines the same frozen value, wherever it sits among the params', () => {
        const lines = [
            request(1, `{"_meta":${META_JSON},"name":"greet","arguments":{"name":"a"}}`),
            request(2, `{"_meta":${META_JSON},"name":"greet","arguments":{"name":"b"}}`),
            request(3, `{"name":"greet","arguments":{"name":"c"},"_meta":${META_JSON}}`),
            request(4, `{"_meta":${META_JSON}}`),
        ];
        const { decoded } = decodeAll(lines);
        // The first line is parsed whole (its own object); the others share the remembered one.
        assert.equal(Object.isFrozen(metaOf(decoded[0]!)), false);
        const shared = metaOf(decoded[1]!);
        assert.ok(Object.isFrozen(shared));
        assert.ok(Object.isFrozen((shared as Record<string, unknown>)['io.modelcontextprotocol/clientCapabilities']));
        assert.equal(metaOf(decoded[2]!), shared);
        assert.equal(metaOf(decoded[3]!), shared);
    });

    it('takes the remembered value only for params._meta: the same text elsewhere is parsed as it stands', () => {
        const nested = request(2, `{"name":"greet","arguments":{"_meta":${META_JSON}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`);
        const duplicate = request(3, `{"_meta":${META_JSON},"_meta":{"other":1}}`);
        const inArgs = request(4, `{"name":"greet","arguments":{"_meta":${META_JSON}}}`);
        const { decoded } = decodeAll([request(1, `{"_meta":${META_JSON}}`), nested, duplicate, inArgs]);
        assert.deepEqual(metaOf(decoded[1]!), { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' });
        assert.deepEqual(metaOf(decoded[2]!), { other: 1 });
        assert.equal(metaOf(decoded[3]!), undefined);
    });

    it('answers bad lines as a plain decode does, and leaves other _meta (progress tokens, spaced text) alone', () => {
        const spaced = JSON.stringify(META, null, 1);
        decodeAll([
            request(1, `{"_meta":${META_JSON}}`),
            request(2, `{"_meta":${META_JSON},"name":}`),
            `{"jsonrpc":"2.0","id":3,"method":"x","params":{"_meta":${META_JSON}},"params":[1]}`,
            request(4, `{"_meta":${spaced}}`),
            request(5, `{"_meta":{"progressToken":"p1"}}`),
            // Another _meta before the params' own: only the first "_meta" key is looked at, so this one is parsed whole.
            request(5, `{"arguments":{"_meta":{"a":1}},"_meta":${META_JSON}}`),
            request(6, `{"_meta":${META_JSON.replace('frames-test', 'another')}}`),
            request(7, `{"_meta":${META_JSON.replace('frames-test', 'another')}}`),
            `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"_meta":${META_JSON},"requestId":1}}`,
        ]);
    });
});

describe('encodeFrame', () => {
    const value = { resultType: 'complete', content: [{ type: 'text', text: 'quote " and \u2028 and \u00e9' }], structuredContent: { n: 1 } };

    it('writes a response with a pre-serialised last member exactly as JSON.stringify does', () => {
        const text = new JsonText(value);
        for (const id of [7, 'req "7"']) {
            const task: Record<string, unknown> = { resultType: 'complete', taskId: 't1', status: 'completed' };
            withJsonTail(task, 'result', text);
            const message: JsonRpcMessage = { jsonrpc: '2.0', id, result: task };
            assert.equal(encodeFrame(message), JSON.stringify(message));
            assert.equal(encodeFrame(message), JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete', taskId: 't1', status: 'completed', result: value } }));
        }
        const empty: Record<string, unknown> = {};
        withJsonTail(empty, 'result', text);
        assert.equal(encodeFrame({ jsonrpc: '2.0', id: 1, result: empty }), JSON.stringify({ jsonrpc: '2.0', id: 1, result: { result: value } }));
    });

    it('serialises plainly what is not such a response, or no longer holds the value', () => {
        const task: Record<string, unknown> = { taskId: 't1' };
        withJsonTail(task, 'result', new JsonText(value));
        assert.equal(encodeFrame({ jsonrpc: '2.0', method: 'notifications/tasks', params: task }), JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tasks', params: task }));
        task.result = { changed: true };
        assert.equal(encodeFrame({ jsonrpc: '2.0', id: 1, result: task }), '{"jsonrpc":"2.0","id":1,"result":{"taskId":"t1","result":{"changed":true}}}');
        assert.throws(() => withJsonTail(task, 'result', new JsonText(value)), /already a member/);
    });
});
