// The owner connection's HTTP (extension/client/guardedHttp.ts): a request leaves only over a
// socket that is connected while the server's process still runs, so a listener that took the
// port of a dead server gets nothing, not even a queued request; otherwise the answer reads as
// fetch's would (status, headers, a streamed body, no body where HTTP has none).
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { GuardedAgent, guardedFetch } from '../../../extension/client/guardedHttp';

describe('guarded HTTP for the owner connection', () => {
    const seen: IncomingHttpHeaders[] = [];
    let url = '';
    const server = createServer((req, res) => {
        seen.push(req.headers);
        if (req.url === '/empty') {
            res.writeHead(204).end();
        } else if (req.url === '/stream') {
            res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's-1' });
            res.write('data: one\n\n');
            setImmediate(() => res.end('data: two\n\n'));
        } else {
            res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no"}');
        }
    });
    before(async () => {
        await new Promise<void>(done => server.listen(0, '127.0.0.1', done));
        url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    after(() => server.close());

    it('sends nothing over a connection made once the process is gone, and says why', async () => {
        seen.length = 0;
        const agent = new GuardedAgent(() => false, 'the server process has exited');
        try {
            await assert.rejects(guardedFetch(`${url}/stream`, { method: 'POST', headers: { authorization: 'Bearer secret' }, body: '{}', signal: new AbortController().signal }, agent), /the server process has exited/);
            // Give a request that did leave the time to arrive: none did.
            await new Promise(resolve => setImmediate(resolve));
            assert.deepEqual(seen, []);
        } finally {
            agent.destroy();
        }
    });

    it('answers as fetch would while the process runs: status, headers, a streamed body, none for 204', async () => {
        seen.length = 0;
        const agent = new GuardedAgent(() => true, 'unused');
        const signal = new AbortController().signal;
        try {
            const stream = await guardedFetch(`${url}/stream`, { method: 'GET', headers: { authorization: 'Bearer secret' }, signal }, agent);
            assert.equal(stream.status, 200);
            assert.equal(stream.headers.get('mcp-session-id'), 's-1');
            assert.equal(await stream.text(), 'data: one\n\ndata: two\n\n');
            const empty = await guardedFetch(`${url}/empty`, { method: 'POST', headers: {}, body: '', signal }, agent);
            assert.equal(empty.status, 204);
            assert.equal(empty.body, null);
            const missing = await guardedFetch(`${url}/nothing`, { method: 'GET', headers: {}, signal }, agent);
            assert.equal(missing.ok, false);
            assert.deepEqual(await missing.json(), { error: 'no' });
            assert.equal(seen[0]?.authorization, 'Bearer secret');
        } finally {
            agent.destroy();
        }
    });
});
