import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fetch2026 } from '../../../../server/src/gateway/client2026.js';

/** A fetch that records what it was asked and answers `response`. */
function recording(response: () => Response) {
    const asked: { url: string; headers: Headers }[] = [];
    const base = (async (url: string | URL | Request, init?: RequestInit) => {
        asked.push({ url: String(url), headers: new Headers(init?.headers) });
        return response();
    }) as typeof fetch;
    return { asked, fetch: fetch2026(base) };
}

const post = (message: Record<string, unknown>, headers: Record<string, string> = {}): RequestInit => ({ method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }) });

describe('fetch2026 (a 2026-07-28 downstream over HTTP)', () => {
    it('adds the version, method and name headers to each POST, keeping the configured ones', async () => {
        const { asked, fetch } = recording(() => new Response('{}', { headers: { 'content-type': 'application/json' } }));
        await fetch('http://127.0.0.1/mcp', post({ method: 'tools/call', params: { name: 'slow_compute' } }, { authorization: 'Bearer x' }));
        await fetch('http://127.0.0.1/mcp', post({ method: 'tasks/get', params: { taskId: 't-1' } }));
        await fetch('http://127.0.0.1/mcp', post({ method: 'tools/list', params: {} }));
        assert.equal(asked[0]!.headers.get('mcp-protocol-version'), '2026-07-28');
        assert.equal(asked[0]!.headers.get('mcp-method'), 'tools/call');
        assert.equal(asked[0]!.headers.get('mcp-name'), 'slow_compute');
        assert.equal(asked[0]!.headers.get('authorization'), 'Bearer x');
        assert.equal(asked[1]!.headers.get('mcp-name'), 't-1');
        assert.equal(asked[2]!.headers.get('mcp-name'), null);
    });

    it('encodes a name that is not plain ASCII as SEP-2243 says', async () => {
        const { asked, fetch } = recording(() => new Response('{}', { headers: { 'content-type': 'application/json' } }));
        await fetch('http://127.0.0.1/mcp', post({ method: 'prompts/get', params: { name: 'grüße' } }));
        assert.equal(asked[0]!.headers.get('mcp-name'), `=?base64?${Buffer.from('grüße').toString('base64')}?=`);
    });

    it('hands on a JSON-RPC error sent with an HTTP error status as an answer, and leaves other failures failed', async () => {
        const error = { jsonrpc: '2.0', id: 1, error: { code: -32021, message: 'needs the tasks extension' } };
        const rpc = recording(() => new Response(JSON.stringify(error), { status: 400, headers: { 'content-type': 'application/json' } }));
        const answered = await rpc.fetch('http://127.0.0.1/mcp', post({ method: 'tools/call', params: { name: 'x' } }));
        assert.equal(answered.status, 200);
        assert.deepEqual(await answered.json(), error);
        const other = recording(() => new Response('{"message":"nope"}', { status: 401, headers: { 'content-type': 'application/json' } }));
        assert.equal((await other.fetch('http://127.0.0.1/mcp', post({ method: 'tools/list' }))).status, 401);
    });
});
