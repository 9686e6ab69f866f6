/**
 * No message can crash the server (issue 30): a value nested past the limits (rpc/nesting.ts) is
 * refused with -32602 when it is decoded, over stdio and HTTP, and the server goes on serving.
 * Before the limit, a 2026-07-28 `_meta` 10,000 levels deep overflowed the stack on stdio
 * (the pipe's `_meta` memo stringified it outside the transport's try/catch) and ended the process.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_DEPTH, MAX_META_VALUES } from '../../../server/src/rpc/nesting.js';
import { classify } from '../../../server/src/rpc/messages.js';
import { httpServerPerSuite } from '../../support/helpers.js';
import { StdioLines } from '../../support/lightRpc.js';
import { exchange, INITIALIZE } from '../../support/rawHttp.js';
import { meta, Http2026Client } from '../../support/rev2026.js';

const LEVELS = 10_000;

/** `{"a":{"a":…1…}}`, `levels` objects deep, as text (JSON.stringify of such a value would overflow here too). */
function nestedText(levels: number): string {
    return '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

/** A 2026-07-28 request line whose `_meta` carries a value `levels` deep. */
function deepMetaLine(id: number, method: string, levels: number): string {
    const head = JSON.stringify(meta()).slice(0, -1);
    return `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":{"_meta":${head},"x":${nestedText(levels)}}}}`;
}

function assertRefused(response: { error?: { code: number; message: string } }, what: RegExp): void {
    assert.equal(response.error?.code, -32602, JSON.stringify(response).slice(0, 300));
    assert.match(response.error!.message, what);
}

describe('a message nested past the limits', () => {
    it(`over stdio: a 2026-07-28 _meta ${LEVELS} levels deep gets -32602, and the pipe keeps serving`, async () => {
        const stdio = StdioLines.start();
        try {
            stdio.write(deepMetaLine(1, 'tools/list', LEVELS));
            assertRefused(await stdio.next(), new RegExp(`nests more than ${MAX_DEPTH} levels deep`));
            // The same client goes on with a sound request on the same pipe.
            const listed = await stdio.call(2, 'tools/list', { _meta: meta() });
            assert.ok(Array.isArray(listed.result?.tools));
            assert.equal(stdio.exited, false);
        } finally {
            stdio.kill();
        }
    });

    it(`over stdio: a 2025-11-25 session's tool arguments ${LEVELS} levels deep get -32602`, async () => {
        const stdio = StdioLines.start();
        try {
            await stdio.initialize();
            stdio.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"x","more":${nestedText(LEVELS)}}}}`);
            assertRefused(await stdio.next(), /nests more than/);
            assert.equal((await stdio.call(2, 'ping')).result !== undefined, true);
        } finally {
            stdio.kill();
        }
    });

    it(`over stdio: a _meta of more than ${MAX_META_VALUES} values gets -32602; one at the depth limit is served`, async () => {
        const stdio = StdioLines.start();
        try {
            const wide = await stdio.call(1, 'tools/list', { _meta: { ...meta(), wide: Array.from({ length: MAX_META_VALUES }, (_, i) => i) } });
            assertRefused(wide, new RegExp(`_meta holds more than ${MAX_META_VALUES} values`));
            // params → _meta → x: three levels spent before the chain.
            stdio.write(deepMetaLine(2, 'tools/list', MAX_DEPTH - 3));
            const deep = await stdio.next();
            assert.ok(Array.isArray(deep.result?.tools), JSON.stringify(deep).slice(0, 300));
        } finally {
            stdio.kill();
        }
    });

    describe('over HTTP', () => {
        const server = httpServerPerSuite();

        it(`a 2026-07-28 request with a _meta ${LEVELS} levels deep gets 400 and -32602`, async () => {
            const client = new Http2026Client(server.url);
            const reply = await exchange(server.url, { headers: client.headersFor('tools/list', {}), body: deepMetaLine(7, 'tools/list', LEVELS) });
            assert.equal(reply.status, 400);
            assertRefused(reply.messages[0]!, /nests more than/);
            assert.equal(reply.messages[0]!.id, 7);
            assert.ok(Array.isArray((await client.call('tools/list')).tools), 'the server still serves');
        });

        it(`a session's request with params ${LEVELS} levels deep gets 400 and -32602`, async () => {
            const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
            const init = await exchange(server.url, { headers, body: JSON.stringify(INITIALIZE) });
            const session = { ...headers, 'mcp-session-id': init.headers['mcp-session-id'] as string };
            const reply = await exchange(server.url, { headers: session, body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":${nestedText(LEVELS)}}}}` });
            assert.equal(reply.status, 400);
            assertRefused(reply.messages[0]!, /nests more than/);
        });
    });
});

describe('a client answer nested past the limits', () => {
    it('becomes an error for the request it answers, not a value the server walks', () => {
        const classified = classify(JSON.parse(`{"jsonrpc":"2.0","id":4,"result":{"action":"accept","content":${nestedText(LEVELS)}}}`));
        assert.equal(classified.kind, 'response');
        const message = classified.kind === 'response' ? classified.message : undefined;
        assert.equal(message?.id, 4);
        assert.equal(message?.result, undefined);
        assert.equal(message?.error?.code, -32602);
        assert.match(message!.error!.message, /client's answer was refused: the message nests more than/);
    });
});
