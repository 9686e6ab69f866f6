/**
 * Whose user a wrapped server's question reaches, through a gateway on HTTP with two clients (two
 * tokens) and a real SDK server on stdio behind it. Nothing on a stdio wire ties a plain call's
 * question to its call, so: with only one client's calls running it goes to that client; with
 * both clients' calls running it reaches neither (it could be either's), and the asking call fails
 * saying why. Before, it went to the newest call: Bob saw Alice's question and his answer became
 * her result. A client that declared no elicitation is never sent one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CallToolResultSchema, ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connect, secret, startHttpServer, textOf, type Connected, type HttpServer } from '../../support/helpers.js';
import { wrapMisbehaving } from './gatewayHelpers.js';

describe("a wrapped server's question reaches only the client whose call asked", { timeout: 60_000 }, () => {
    let server: HttpServer;
    const [alice, bob, carol] = [secret(), secret(), secret()];
    let a: Connected;
    let b: Connected;
    /** Who was asked, in order. */
    const asked: string[] = [];

    before(async () => {
        server = await startHttpServer(['--token', alice, '--token', bob, '--token', carol, '--log-level', 'debug', ...wrapMisbehaving()]);
        await server.log.waitFor(/\[misbehaving\] connected/);
        const answering = async (token: string, name: string) => {
            const c = await connect('http', server, { token, capabilities: { elicitation: {} } });
            c.client.setRequestHandler(ElicitRequestSchema, () => {
                asked.push(name);
                return { action: 'accept', content: { word: name } };
            });
            return c;
        };
        [a, b] = await Promise.all([answering(alice, 'alice'), answering(bob, 'bob')]);
    });
    after(async () => {
        await Promise.all([a?.close(), b?.close()]);
        await server?.stop();
    });

    const call = (c: Connected, name: string) => c.client.request({ method: 'tools/call', params: { name, arguments: {} } }, CallToolResultSchema) as Promise<CallToolResult>;

    it("with only Alice's calls running, her question is hers", async () => {
        asked.length = 0;
        assert.equal(textOf(await call(a, 'ask')), 'answer: accept alice');
        assert.deepEqual(asked, ['alice']);
    });

    // Before Bob's call that never ends: a question of Carol's with Bob's call running would be refused anyway.
    it('a client that declared no elicitation is not asked: the call fails with words', async () => {
        const c = await connect('http', server, { token: carol });
        try {
            const result = await call(c, 'ask');
            assert.equal(result.isError, true);
            assert.match(textOf(result), /this client did not declare the elicitation capability, so nothing was asked/);
        } finally {
            await c.close();
        }
    });

    it("with Bob's newer call running too, Alice's question reaches neither, and her call says why", async () => {
        asked.length = 0;
        const waiting = server.log.waitFor(/ask_later: waiting/);
        const hers = call(a, 'ask_later');
        await waiting;
        const started = server.log.waitFor(/hang: started/);
        void call(b, 'hang').catch(() => undefined);
        await started;
        const refused = server.log.waitFor(/refused a question that names no task while calls of several clients run/);
        await call(a, 'release');
        const result = await hers;
        await refused;
        assert.deepEqual(asked, [], 'no user was asked');
        assert.equal(result.isError, true);
        assert.match(textOf(result), /did not pass this question on: calls of several clients are running on this server/);
    });
});
